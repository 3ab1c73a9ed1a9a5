"""Benchmark of gcmsiv.arrow: values per second of encrypt_array/decrypt_array on a column of
one million values, beside pyca/cryptography's AESGCMSIV called once per value and, given
the path of the built Rust benchmark (`cargo build --release -p gcmsiv-bench`), the Rust
batch API on the same sizes, one thread each.

    python bench/bench_arrow.py [--sizes 16,32,64,256] [--rust target/release/gcmsiv-bench]

Best of several rounds. The one-thread columns (ours, Rust's, pyca's) are CPU time of the
thread, so that other jobs on a shared machine do not count; "all cores" is wall-clock
time. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from collections.abc import Callable

import pyarrow as pa
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from gcmsiv.arrow import decrypt_array, encrypt_array

VALUES = 1 << 20
PYCA_VALUES = 100_000
KEY = bytes(range(32))


def best(call: Callable[[], object], rounds: int, clock: Callable[[], float] = time.perf_counter) -> float:
    times = []
    for _ in range(rounds):
        start = clock()
        call()
        times.append(clock() - start)
    return min(times)


def rust_rates(binary: str, sizes: list[int]) -> dict[int, tuple[float, float]]:
    """The Rust batch API's (seal, open) values per second, from gcmsiv-bench's column table."""
    out = subprocess.run(
        [binary, "--only", "column", "--sizes", ",".join(map(str, sizes))],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rates = {}
    for line in out.splitlines():
        m = re.match(r"\| (\d+) \| ([\d.]+) M \| ([\d.]+) M \|", line)
        if m:
            rates[int(m[1])] = (float(m[2]) * 1e6, float(m[3]) * 1e6)
    return rates


def print_size(size: int, rounds: int, rust: tuple[float, float] | None) -> None:
    """The rows for values of `size` bytes; `rust`: the Rust batch API's (seal, open) rates."""
    pyca = AESGCMSIV(KEY)
    column = pa.array([os.urandom(size) for _ in range(4096)] * (VALUES // 4096), pa.binary())
    plain = column.to_pylist()[:PYCA_VALUES]
    nonces = [os.urandom(12) for _ in range(PYCA_VALUES)]
    sealed_py = [pyca.encrypt(n, v, None) for n, v in zip(nonces, plain, strict=True)]
    pyca_rates = {
        "encrypt": PYCA_VALUES
        / best(
            lambda: [pyca.encrypt(n, v, None) for n, v in zip(nonces, plain, strict=True)],
            rounds,
            time.thread_time,
        ),
        "decrypt": PYCA_VALUES
        / best(
            lambda: [pyca.decrypt(n, c, None) for n, c in zip(nonces, sealed_py, strict=True)],
            rounds,
            time.thread_time,
        ),
    }
    for mode in ("random", "deterministic"):
        sealed = encrypt_array(KEY, column, mode=mode)
        calls = {
            "encrypt": lambda threads, mode=mode: encrypt_array(KEY, column, mode=mode, threads=threads),
            "decrypt": lambda threads, mode=mode, sealed=sealed: decrypt_array(
                KEY, sealed, mode=mode, threads=threads
            ),
        }
        for op, call in calls.items():
            # One thread: this thread's CPU time (threads=1 runs on the calling thread), as the
            # Rust benchmark measures, so that other jobs on the machine do not count.
            one = VALUES / best(lambda call=call: call(1), rounds, time.thread_time)
            every = VALUES / best(lambda call=call: call(None), rounds)
            r = (rust or (0.0, 0.0))[0 if op == "encrypt" else 1]
            vs_rust = f"{one / r:.2f}" if r else "-"
            print(
                f"| {size} | {mode} | {op} | {one / 1e6:.2f} M | {every / 1e6:.2f} M | "
                f"{(f'{r / 1e6:.2f} M') if r else '-'} | {vs_rust} | {pyca_rates[op] / 1e6:.2f} M | "
                f"{one / pyca_rates[op]:.1f}x |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="16,32,64,256")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rust", help="path of the built gcmsiv-bench binary")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rust = rust_rates(args.rust, sizes) if args.rust else {}
    cores = len(os.sched_getaffinity(0))
    print(
        f"# {VALUES} values per column, AES-256-GCM-SIV, values/s, best of {args.rounds}; {cores} cores; "
        "1 thread: CPU time, all cores: wall-clock"
    )
    print(
        "| bytes | mode | op | encrypt_array 1 thread | all cores | Rust batch API 1 thread "
        "| 1 thread / Rust | pyca once per value | 1 thread / pyca |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in sizes:
        print_size(size, args.rounds, rust.get(size))


if __name__ == "__main__":
    main()
