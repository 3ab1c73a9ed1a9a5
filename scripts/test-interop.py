#!/usr/bin/env python3
"""The cross-language test of the file format: files written by every language
(the Rust tool, C, Go, Node.js, Java, Python) are read back by every other, in
order and by random access, byte for byte; damaged files fail the same way in
each, releasing the same authenticated prefix.

Each language has an entry point with one contract (arguments; the secret as
a key of 64 hex digits, or recipients=PATH to write to a recipients file's
recipients and identities=PATH to read with an identity file's identities):
    encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT
    decrypt KEYHEX IN OUT      (OUT gets exactly what the reader released)
    range KEYHEX IN OFFSET LENGTH OUT
exiting 0, or 1 with a line on stderr starting "authentication:" or "format:".
The tool takes a key file (or -R and -i) and its own options, and reads
ranges with `decrypt --offset/--length`. Files to recipients (format version
2, X25519 and hybrid) go the same rounds with the committed identities of
vectors/format.

    scripts/test-interop.py --python VENV_PYTHON

is run by scripts/test.sh after the bindings' own tests, which build what it
runs: target/release/gcmsiv, target/c-test/interop, target/java-test/classes
with target/release/libgcmsiv_java.so, the Node.js addon, and the Python
package installed in VENV_PYTHON's environment. It builds the Go entry point
itself."""

import argparse
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEY = bytes(range(32)).hex()


def commands(python):
    go = ROOT / "target/go-interop"
    go.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["go", "build", "-o", str(go), "./internal/interop"], cwd=ROOT / "bindings/go", check=True)
    java = [
        "java",
        f"-Dgcmsiv.library={ROOT / 'target/release/libgcmsiv_java.so'}",
        "-cp",
        str(ROOT / "target/java-test/classes"),
        "dev.gcmsiv.Interop",
    ]
    return {
        "c": [str(ROOT / "target/c-test/interop")],
        "go": [str(go)],
        "node": ["node", str(ROOT / "bindings/node/tools/interop.js")],
        "java": java,
        "python": [python, "-m", "gcmsiv._interop"],
    }


class Tool:
    """The gcmsiv tool behind the same contract."""

    def __init__(self, work):
        self.exe = str(ROOT / "target/release/gcmsiv")
        self.keyfile = work / "tool.key"
        self.keyfile.write_text(f"gcmsiv-key-v1:{KEY}\n")
        self.keyfile.chmod(0o600)
        help_text = subprocess.run([self.exe, "decrypt", "--help"], capture_output=True, text=True).stdout
        self.ranges = "--offset" in help_text

    def secret(self, arg):
        if arg.startswith("recipients="):
            return ["-R", arg[len("recipients="):]]
        if arg.startswith("identities="):
            return ["-i", arg[len("identities="):]]
        return ["-k", str(self.keyfile)]

    def run(self, args):
        op = args[0]
        if op == "encrypt":
            _, secret, chunk, alg, src, dst = args
            exp = int(chunk).bit_length() - 1
            cmd = [self.exe, "encrypt", "-q", "-f", *self.secret(secret), "--chunk-size-exp", str(exp),
                   "--algorithm", alg, "-o", dst, src]
            return subprocess.run(cmd, capture_output=True, text=True)
        if op == "decrypt":
            _, secret, src, dst = args
            with open(dst, "wb") as out:
                r = subprocess.run([self.exe, "decrypt", "-q", *self.secret(secret), src],
                                   stdout=out, stderr=subprocess.PIPE, text=True)
            return r
        _, secret, src, offset, length, dst = args
        with open(dst, "wb") as out:
            return subprocess.run([self.exe, "decrypt", "-q", *self.secret(secret), "--offset", offset,
                                   "--length", length, src], stdout=out, stderr=subprocess.PIPE, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="a Python with the gcmsiv package installed")
    args = parser.parse_args()
    langs = commands(args.python)
    work = Path(tempfile.mkdtemp(prefix="gcmsiv-interop-"))
    tool = Tool(work)

    def run(lang, argv):
        if lang == "tool":
            return tool.run(argv)
        return subprocess.run(langs[lang] + argv, capture_output=True, text=True)

    rng = random.Random(8452)
    # (name, length, chunk size, algorithm): empty, one byte, exactly one and two
    # chunks, many chunks, and a larger file at the default chunk size.
    cases = [("empty", 0, 1024, "aes256"), ("one-byte", 1, 1024, "aes128"), ("one-chunk", 1024, 1024, "aes256"),
             ("two-chunks", 2048, 1024, "aes128"), ("many", 37 * 1024 + 5, 1024, "aes256"),
             ("large", 300_000, 65536, "aes128")]
    plain = {}
    for name, length, _, _ in cases:
        plain[name] = work / f"{name}.txt"
        plain[name].write_bytes(rng.randbytes(length))
    writers = ["tool", *langs]
    readers = ["tool", *langs]
    range_readers = [r for r in readers if r != "tool" or tool.ranges]
    failures = []

    def check(desc, result, expect_ok=True, expect_class=None):
        if expect_ok and result.returncode != 0:
            failures.append(f"{desc}: exit {result.returncode}: {result.stderr.strip()[:300]}")
            return False
        if not expect_ok:
            if result.returncode != 1:
                failures.append(f"{desc}: expected exit 1, got {result.returncode}: {result.stderr.strip()[:300]}")
                return False
            line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
            if expect_class and lang_of(desc) != "tool" and not line.startswith(expect_class + ":"):
                failures.append(f"{desc}: expected a '{expect_class}:' error, got {line!r}")
                return False
        return True

    def lang_of(desc):
        return desc.split()[1]

    jobs = []
    files = {}
    # Files to recipients: the committed identities of the format's vectors,
    # X25519 (alice) and hybrid (bob); carol's identity opens neither.
    vec = ROOT / "vectors/format"
    to_recipients = {
        "many": (f"recipients={vec / 'alice.recipient'}", f"identities={vec / 'alice.id'}"),
        "large": (f"recipients={vec / 'bob.pq.recipient'}", f"identities={vec / 'bob.pq.id'}"),
    }
    v2_names = {f"{name}-v2": name for name in to_recipients}
    for v2, name in v2_names.items():
        plain[v2] = plain[name]
    secret_of = {name: (KEY, KEY) for name, _, _, _ in cases}
    secret_of.update({v2: to_recipients[name] for v2, name in v2_names.items()})
    # 1. Every writer writes every case, and the two files to recipients.
    v2_cases = [(v2, 0, chunk, alg) for v2, name in v2_names.items() for n, _, chunk, alg in cases if n == name]
    for writer in writers:
        for name, _, chunk, alg in cases + v2_cases:
            out = work / f"{name}.{writer}.gcmsiv"
            files[(writer, name)] = out
            jobs.append((f"write {writer} {name}", writer,
                         ["encrypt", secret_of[name][0], str(chunk), alg, str(plain[name]), str(out)], None))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for (desc, lang, argv, _), result in zip(jobs, pool.map(lambda j: run(j[1], j[2]), jobs)):
            check(desc, result)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)

    # 2. Every reader reads every file, in order; the larger ones also by ranges.
    jobs = []
    for (writer, name), path in files.items():
        length = plain[name].stat().st_size
        for reader in readers:
            out = work / f"{name}.{writer}.{reader}.out"
            jobs.append((f"read {reader} {name} written by {writer}", reader,
                         ["decrypt", secret_of[name][1], str(path), str(out)], (out, plain[name].read_bytes())))
        if name in v2_names:
            # Read with an identity the file does not name: nothing, an authentication failure.
            for reader in readers:
                out = work / f"{name}.{writer}.{reader}.carol.out"
                jobs.append((f"wrong {reader} {name} written by {writer}", reader,
                             ["decrypt", f"identities={vec / 'carol.id'}", str(path), str(out)],
                             (out, b"", "authentication")))
        if name in ("many", "large", "one-chunk", *v2_names):
            for reader in range_readers:
                for k in range(2):
                    offset = rng.randrange(0, length + 10)
                    size = rng.randrange(0, 70_000)
                    out = work / f"{name}.{writer}.{reader}.range{k}"
                    want = plain[name].read_bytes()[offset:offset + size]
                    jobs.append((f"range {reader} {name} written by {writer} at {offset}+{size}", reader,
                                 ["range", secret_of[name][1], str(path), str(offset), str(size), str(out)],
                                 (out, want)))
    # 3. Damage: a cut in the middle (format) and a flipped byte in a chunk
    # (authentication), of each writer's many-chunk file.
    many = plain["many"].read_bytes()
    for writer in writers:
        data = files[(writer, "many")].read_bytes()
        cut = work / f"many.{writer}.cut"
        cut.write_bytes(data[: 86 + 3 * (1024 + 20) + 500])
        flip = bytearray(data)
        flip[86 + 5 * (1024 + 20) + 100] ^= 1
        flipped = work / f"many.{writer}.flip"
        flipped.write_bytes(bytes(flip))
        for reader in readers:
            out = work / f"many.{writer}.{reader}.cut.out"
            jobs.append((f"damaged {reader} cut file written by {writer}", reader, ["decrypt", KEY, str(cut), str(out)],
                         (out, many[: 3 * 1024], "format")))
            out = work / f"many.{writer}.{reader}.flip.out"
            jobs.append((f"damaged {reader} flipped file written by {writer}", reader,
                         ["decrypt", KEY, str(flipped), str(out)], (out, many[: 5 * 1024], "authentication")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: run(j[1], j[2]), jobs))
    for (desc, lang, argv, expect), result in zip(jobs, results):
        out, want = expect[0], expect[1]
        damaged = len(expect) == 3
        if not check(desc, result, expect_ok=not damaged, expect_class=expect[2] if damaged else None):
            continue
        got = out.read_bytes() if out.exists() else b""
        if got != want:
            failures.append(f"{desc}: {len(got)} bytes out, expected {len(want)} (first difference at "
                            f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))})")
    runs = len(jobs) + len(writers) * (len(cases) + len(v2_cases))
    if failures:
        print(f"interop: {len(failures)} of {runs} runs failed:", file=sys.stderr)
        print("\n".join(failures[:60]), file=sys.stderr)
        sys.exit(1)
    print(f"interop: {len(writers)} writers x {len(readers)} readers, {len(cases)} cases and {len(v2_cases)} to "
          f"recipients (X25519, hybrid; a wrong identity), damage and ranges: "
          f"{runs} runs, every file read back byte for byte" + ("" if tool.ranges else " (the tool reads no ranges yet)"))


if __name__ == "__main__":
    main()
