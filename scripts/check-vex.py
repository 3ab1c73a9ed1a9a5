#!/usr/bin/env python3
"""Checks a compiled gcmsiv binary (default: the release C library) for
legacy-SSE instructions in functions that touch 256- or 512-bit registers.

After a function writes a YMM or ZMM register, the CPU must keep or merge
the registers' upper halves around every legacy-SSE (non-VEX) instruction;
on an Intel Xeon with AVX-512 three such `pclmulqdq` per chunk made the
512-bit POLYVAL pass sixteen times slower. The compiler encodes intrinsics
to match each function's features, but `asm!` blocks are written by hand:
the AVX code must use their VEX twins (backend/x86_64/aes.rs,
`round_at_vex!`). Between functions the compiler inserts `vzeroupper`, so
the check is per function. It needs objdump, and fails if it finds no
wide function at all (so that it cannot pass on the wrong binary)."""
import re
import subprocess
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "target/release/libgcmsiv_c.so"
listing = subprocess.run(
    ["objdump", "-d", "--no-show-raw-insn", "-M", "intel", path], capture_output=True, text=True, check=True
).stdout
functions, current = {}, None
for line in listing.splitlines():
    head = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
    if head:
        current = head.group(1)
        functions[current] = []
    elif current and "\t" in line:
        functions[current].append(line.split("\t", 1)[1].strip())
wide = 0
bad = []
for name, code in functions.items():
    if "gcmsiv" not in name or not any(re.search(r"\b[yz]mm\d+", i) for i in code):
        continue
    wide += 1
    legacy = [i for i in code if re.search(r"\bxmm\d+", i) and not i.startswith(("v", "k"))]
    if legacy:
        bad.append((name, legacy))
for name, legacy in bad:
    print(f"{name}: {len(legacy)} legacy-SSE instructions, e.g. {legacy[:3]}")
if wide == 0:
    sys.exit(f"check-vex: no gcmsiv function in {path} touches YMM or ZMM registers: wrong binary?")
if bad:
    sys.exit(1)
print(f"check-vex: {wide} functions with 256/512-bit registers in {path}, none with a legacy-SSE instruction")
