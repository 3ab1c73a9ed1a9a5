#!/usr/bin/env python3
"""Checks the layering of the core crate and the stream crate, at two levels:

- the modules of crates/gcmsiv/src/ and of crates/gcmsiv-stream/src/ (their
  order in lib.rs's module list is the layering): a module may use only the
  modules listed before it, by path (`crate::siv::...`) or through a name the
  crate root re-exports (`crate::Error` is error.rs's);
- the research module (feature `research`, the seed papers' variants) is the
  top layer, listed last, and nothing else uses it; its family files
  (research/siv.rs, research/derive_key.rs, research/bounds.rs) stand side by
  side over the crate's layers and never use one another;
- the modules of crates/gcmsiv/src/backend/x86_64/ (their order in that
  folder's mod.rs; a module is a file, or a folder whose files are read as
  one): a module may use only those listed before it (`super::x`), and may
  call no method of `Schedule` or `Polyval` defined in a module after it;
- the x86-64 tiers (the folders `ni/`, `vaes256/`, `vaes512/`) never use one
  another: what two tiers share sits below them; and no type of the
  backend has inherent methods (`impl Type {`) in more than two modules;
- nothing in crates/gcmsiv/src/ outside research/ (and lib.rs, which declares
  it) changes with the `research` feature;
- the C ABI (crates/gcmsiv-c/src/): pointers from C become slices,
  references and handles, and are written through, in ffi.rs only.

Comments and test modules are exempt. Exits 1 and names each violation."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "crates/gcmsiv/src"
STREAM_SRC = ROOT / "crates/gcmsiv-stream/src"


def code_of(path):
    """The file without its test module and without comments."""
    text = path.read_text()
    m = re.search(r"^#\[cfg\(test\)\]\s*\nmod tests", text, re.M)
    text = text[: m.start()] if m else text
    return "\n".join(line.split("//")[0] if '"' not in line else line for line in text.splitlines())


def module_order(root_file):
    return re.findall(r"^(?:pub(?:\(crate\))? )?mod (\w+);", root_file.read_text(), re.M)


def check_crate(errors, src):
    order = module_order(src / "lib.rs")
    rank = {name: i for i, name in enumerate(order)}
    reexported = {}
    for m in re.finditer(r"^pub use (\w+)::\{?([^;]*?)\}?;", (src / "lib.rs").read_text(), re.M):
        for name in re.findall(r"\w+", m.group(2)):
            reexported[name] = m.group(1)
    for path in sorted(src.rglob("*.rs")):
        module = path.relative_to(src).parts[0].removesuffix(".rs")
        if module not in rank:
            continue
        text = code_of(path)
        used = set(re.findall(r"\bcrate::(\w+)", text))
        for group in re.findall(r"\buse crate::\{([^}]*)\}", text):
            used |= set(re.findall(r"\w+", group))
        for name in used:
            target = name if name in rank else reexported.get(name)
            if target in rank and rank[target] > rank[module]:
                errors.append(f"{path.relative_to(ROOT)} uses {name} ({target}), which is not below {module}")
    return order


def check_research(errors, order):
    if "research" not in order:
        return
    if order[-1] != "research":
        errors.append("research must be the last module of lib.rs: it is the top layer")
    folder = SRC / "research"
    siblings = {p.stem for p in folder.glob("*.rs")} - {"mod"}
    for path in sorted(folder.glob("*.rs")):
        if path.stem == "mod":
            continue
        for used in set(re.findall(r"\bsuper::(\w+)", code_of(path))):
            if used in siblings:
                errors.append(f"research/{path.name} uses research/{used}.rs: the family files stand side by side")


TIERS = ("ni", "vaes256", "vaes512")


def module_code(folder, name):
    """A module's code: its file, or every file of its folder (where a
    module's own `super::` is the backend's, and a nested file's
    `super::super::` is)."""
    if (folder / f"{name}.rs").exists():
        return code_of(folder / f"{name}.rs")
    parts = []
    for path in sorted((folder / name).rglob("*.rs")):
        text = code_of(path)
        depth = len(path.relative_to(folder / name).parts) - (1 if path.name == "mod.rs" else 0)
        # Read every file as if it sat at the folder's mod.rs.
        text = text.replace("super::" * (depth + 1), "super::") if depth else text
        parts.append(text)
    return "\n".join(parts)


def check_backend(errors):
    folder = SRC / "backend/x86_64"
    order = module_order(folder / "mod.rs")
    rank = {name: i for i, name in enumerate(order)}
    code = {name: module_code(folder, name) for name in order}
    for tier in TIERS:
        if tier not in rank or not (folder / tier).is_dir():
            errors.append(f"x86_64/{tier}/: a tier the layering expects is missing")
    for name, text in code.items():
        for used in set(re.findall(r"\bsuper::(\w+)", text)):
            if used in rank and rank[used] >= rank[name]:
                errors.append(f"x86_64/{name} uses {used}, which is not below it")
            if name in TIERS and used in TIERS and used != name:
                errors.append(f"x86_64/{name}/ uses x86_64/{used}/: the tiers never use one another")
        for other in TIERS:
            if other != name and name in TIERS and re.search(rf"\bx86_64::{other}\b", text):
                errors.append(f"x86_64/{name}/ uses x86_64/{other}/: the tiers never use one another")
    homes = {}
    for name, text in code.items():
        for ty in re.findall(r"^impl(?:<[^>]*>)? (\w+)(?:<[^>]*>)? \{", text, re.M):
            homes.setdefault(ty, set()).add(name)
    for ty, names in sorted(homes.items()):
        if len(names) > 2:
            errors.append(f"x86_64: {ty} has inherent methods in {len(names)} modules ({', '.join(sorted(names))})")
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
                errors.append(f"x86_64/{name}.rs calls {method}, defined above it in {', '.join(sorted(homes))}")
    return order


# What turns a pointer from C into something Rust trusts: a slice, a
# reference, a box, a write or read through it.
POINTER_CONVERSIONS = re.compile(
    r"from_raw_parts|Box::from_raw|Box::into_raw|\.as_ref\(\)|\.as_mut\(\)|\.write\(|\.read\(\)"
    r"|read_unaligned|write_unaligned|copy_nonoverlapping|write_bytes"
)


def check_research_room(errors):
    """Nothing below the research module changes with the `research` feature:
    only lib.rs names it, to declare the module."""
    for path in sorted(SRC.rglob("*.rs")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "research" or rel == pathlib.Path("lib.rs"):
            continue
        for number, line in enumerate(code_of(path).splitlines(), 1):
            if 'feature = "research"' in line:
                errors.append(f"crates/gcmsiv/src/{rel}:{number}: changes with the research feature")


def check_c_abi(errors):
    """The C ABI's pointers become slices, references and handles in ffi.rs
    only: every other file calls its helpers."""
    folder = ROOT / "crates/gcmsiv-c/src"
    for path in sorted(folder.glob("*.rs")):
        if path.name == "ffi.rs":
            continue
        for number, line in enumerate(code_of(path).splitlines(), 1):
            for m in POINTER_CONVERSIONS.finditer(line):
                # `Option::as_mut`/`as_ref` on a Rust value is no conversion:
                # only a raw pointer's counts, named by the word before.
                if m.group(0) in (".as_ref()", ".as_mut()") and not re.search(r"\b(ptr|key|enc|dec|reader|out\w*)\s*$", line[: m.start()]):
                    continue
                errors.append(f"crates/gcmsiv-c/src/{path.name}:{number}: {m.group(0).strip('.()')} outside ffi.rs")


def main():
    errors = []
    check_c_abi(errors)
    check_research_room(errors)
    crate = check_crate(errors, SRC)
    stream = check_crate(errors, STREAM_SRC)
    check_research(errors, crate)
    backend = check_backend(errors)
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"crate layers: {' < '.join(crate)}")
    print(f"stream crate layers: {' < '.join(stream)}")
    print(f"x86-64 layers: {' < '.join(backend)}")
    print(f"x86-64 tiers, side by side: {', '.join(TIERS)}")
    print("no module or file uses one above it; nothing below research/ changes with its feature; "
          "the C ABI converts pointers in ffi.rs only")


main()
