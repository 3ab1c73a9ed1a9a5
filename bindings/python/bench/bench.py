"""gcmsiv against pyca/cryptography, in one process: AESGCMSIV and AESGCM, single calls and
batch calls, encryption and decryption, and threads.

Every measurement runs round-robin: in each round every contender runs one timed block
of calls, so drift (frequency, other load) hits all alike, and the median block over the
rounds is reported. Prints Markdown tables (the ones in docs/PERFORMANCE.md).

    python bench/bench.py                 # full run, about a minute
    python bench/bench.py --quick         # fewer rounds, for a smoke test
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import cryptography
import gcmsiv
from cryptography.hazmat.primitives.ciphers import aead

SIZES = [16, 64, 1024, 16 * 1024, 1024 * 1024]
NONCE = bytes(range(12))


@dataclass
class Contender:
    name: str
    run: Callable[[], object]  # one timed unit of work
    messages: int  # messages it handles


def block_size(contender: Contender, target: float) -> int:
    """How many runs make a block of about `target` seconds."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            contender.run()
        elapsed = time.perf_counter() - start
        if elapsed >= target / 4:
            return max(1, round(n * target / elapsed))
        n *= 4


def measure(contenders: list[Contender], rounds: int, target: float) -> dict[str, float]:
    """Median seconds per message for each contender, interleaved round-robin."""
    blocks = {c.name: block_size(c, target) for c in contenders}
    samples: dict[str, list[float]] = {c.name: [] for c in contenders}
    for _ in range(rounds):
        for c in contenders:
            n = blocks[c.name]
            start = time.perf_counter()
            for _ in range(n):
                c.run()
            samples[c.name].append((time.perf_counter() - start) / (n * c.messages))
    return {name: statistics.median(s) for name, s in samples.items()}


def batch_length(size: int) -> int:
    """Messages per batch: up to 256, and at most 64 KiB of data (one message from 64 KiB
    up). Batches pay off for short messages. Larger ones make many large results at once,
    and glibc's malloc hands that memory back to the kernel when they are freed, so every
    batch pays page faults that a loop of single calls, reusing one freed block, does not:
    an effect of the allocator that this benchmark would otherwise measure."""
    return max(1, min(256, (64 << 10) // size))


def contenders(algorithm: str, key: bytes, size: int, op: str) -> list[Contender]:
    ours, theirs = getattr(gcmsiv, algorithm)(key), getattr(aead, algorithm)(key)
    data = os.urandom(size)
    aad = b"header"
    sealed = theirs.encrypt(NONCE, data, aad)
    batch = batch_length(size)
    if op == "encrypt":
        items = [(NONCE, data, aad)] * batch
        return [
            Contender("pyca", lambda: theirs.encrypt(NONCE, data, aad), 1),
            Contender("gcmsiv", lambda: ours.encrypt(NONCE, data, aad), 1),
            Contender("gcmsiv batch", lambda: ours.encrypt_many(items), batch),
        ]
    items = [(NONCE, sealed, aad)] * batch
    return [
        Contender("pyca", lambda: theirs.decrypt(NONCE, sealed, aad), 1),
        Contender("gcmsiv", lambda: ours.decrypt(NONCE, sealed, aad), 1),
        Contender("gcmsiv batch", lambda: ours.decrypt_many(items), batch),
    ]


def human(size: int) -> str:
    return (
        f"{size // (1 << 20)} MiB"
        if size >= 1 << 20
        else f"{size // 1024} KiB"
        if size >= 1024
        else f"{size} B"
    )


def single_thread_tables(key_bits: int, rounds: int, target: float) -> None:
    key = os.urandom(key_bits // 8)
    for algorithm in ("AESGCMSIV", "AESGCM"):
        print(f"\n### {algorithm}, {key_bits}-bit key\n")
        print(
            "| size | op | pyca calls/s | gcmsiv calls/s | ratio | batch msgs/s | batch ratio "
            "| pyca GB/s | gcmsiv GB/s | batch GB/s |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for size in SIZES:
            for op in ("encrypt", "decrypt"):
                t = measure(contenders(algorithm, key, size, op), rounds, target)
                p, o, b = t["pyca"], t["gcmsiv"], t["gcmsiv batch"]
                print(
                    f"| {human(size)} | {op} | {1 / p:,.0f} | {1 / o:,.0f} | **{p / o:.2f}x** "
                    f"| {1 / b:,.0f} | **{p / b:.2f}x** "
                    f"| {size / p / 1e9:.2f} | {size / o / 1e9:.2f} | {size / b / 1e9:.2f} |",
                    flush=True,
                )


def threaded_rate(work: Callable[[], object], threads: int, seconds: float) -> float:
    """Calls per second of `work`, run in `threads` threads at once for `seconds`."""
    counts = [0] * threads
    start_line = threading.Barrier(threads + 1)
    stop = threading.Event()

    def loop(i: int) -> None:
        start_line.wait()
        while not stop.is_set():
            work()
            counts[i] += 1

    pool = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    start_line.wait()
    start = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def thread_table(rounds: int) -> None:
    key = os.urandom(32)
    ours, theirs = gcmsiv.AESGCMSIV(key), aead.AESGCMSIV(key)
    print("\n### Threads: AESGCMSIV encryption, 256-bit key, 1 thread vs 2\n")
    print("| work | pyca 2 threads / 1 | gcmsiv 2 threads / 1 |")
    print("|---|---:|---:|")
    small = [(NONCE, os.urandom(64), None)] * 256
    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = []
    for size in (16 * 1024, 1024 * 1024):
        data = os.urandom(size)
        cases.append(
            (
                f"{human(size)} messages",
                lambda data=data: theirs.encrypt(NONCE, data, None),
                lambda data=data: ours.encrypt(NONCE, data, None),
            )
        )
    cases.append(
        (
            "batches of 256 x 64 B (pyca: 256 calls)",
            lambda: [theirs.encrypt(n, d, a) for n, d, a in small],
            lambda: ours.encrypt_many(small),
        )
    )
    for label, pyca_work, our_work in cases:
        scale: dict[str, list[float]] = {"pyca": [], "gcmsiv": []}
        for _ in range(max(3, rounds // 3)):
            for name, work in (("pyca", pyca_work), ("gcmsiv", our_work)):
                scale[name].append(threaded_rate(work, 2, 0.3) / threaded_rate(work, 1, 0.3))
        print(
            f"| {label} | {statistics.median(scale['pyca']):.2f}x "
            f"| {statistics.median(scale['gcmsiv']):.2f}x |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds of short blocks")
    parser.add_argument("--key-bits", type=int, choices=[128, 256], default=256)
    parser.add_argument("--no-threads", action="store_true", help="skip the thread table")
    args = parser.parse_args()
    rounds, target = (3, 0.005) if args.quick else (11, 0.02)

    print(
        f"gcmsiv {gcmsiv.__version__} (backend {gcmsiv.backend()}) "
        f"vs cryptography {cryptography.__version__}; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs. "
        f"Medians of {rounds} interleaved rounds. Batches: up to 256 messages, at most 64 KiB."
    )
    single_thread_tables(args.key_bits, rounds, target)
    if not args.no_threads:
        thread_table(rounds)


if __name__ == "__main__":
    main()
