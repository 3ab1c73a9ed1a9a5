"""Threads: one cipher shared by many threads gives the same bytes, and calls on large
inputs let other Python threads run meanwhile (the GIL is released)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import gcmsiv
import pytest

NONCE = bytes(range(12))
BIG = 48 * 1024 * 1024  # long enough (tens of ms) to see other threads run during one call


def longest_stall(call: Callable[[], object]) -> tuple[float, float]:
    """Runs `call` while another thread ticks in pure Python. Returns the call's duration
    and the longest time within it during which the ticking thread made no progress.
    A call that holds the GIL stalls that thread for the whole call."""
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        last = 0.0
        while not stop.is_set():
            now = time.perf_counter()
            if now - last > 0.0005:
                ticks.append(now)
                last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.02)  # let it start ticking
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    ticker.join()
    inside = [start] + [t for t in ticks if start < t < end] + [end]
    return end - start, max(b - a for a, b in itertools.pairwise(inside))


def releases_gil(call: Callable[[], object], longest: float = 0.5, attempts: int = 3) -> bool:
    """True if, in one of a few attempts, the other thread never stalled for more than
    `longest` of the call. (Retries absorb a loaded machine descheduling the ticking thread.)"""
    for _ in range(attempts):
        duration, stall = longest_stall(call)
        if stall < duration * longest:
            return True
    return False


def test_the_detector_sees_a_call_that_holds_the_gil() -> None:
    """sum() over a range runs in C holding the GIL: the ticking thread must stall."""
    assert not releases_gil(lambda: sum(range(20_000_000)), longest=0.85, attempts=1)


@pytest.mark.parametrize(
    "call",
    ["encrypt", "decrypt", "encrypt_into", "decrypt_into", "encrypt_many", "decrypt_many", "many_small"],
)
def test_large_calls_release_the_gil(algorithm: str, call: str) -> None:
    c = getattr(gcmsiv, algorithm)(bytes(32))
    data = bytes(BIG)
    sealed = c.encrypt(NONCE, data, None)
    small = [(NONCE, bytes(64), None)] * 200_000
    sealed_out, opened_out = bytearray(BIG + 16), bytearray(BIG)  # made outside the timed call
    calls: dict[str, Callable[[], object]] = {
        "encrypt": lambda: c.encrypt(NONCE, data, None),
        "decrypt": lambda: c.decrypt(NONCE, sealed, None),
        "encrypt_into": lambda: c.encrypt_into(NONCE, data, None, sealed_out),
        "decrypt_into": lambda: c.decrypt_into(NONCE, sealed, None, opened_out),
        "encrypt_many": lambda: c.encrypt_many([(NONCE, data, None)]),
        "decrypt_many": lambda: c.decrypt_many([(NONCE, sealed, None)]),
        # Many small messages: reading the items and making the results holds the GIL
        # (about half the time), the cipher work does not.
        "many_small": lambda: c.encrypt_many(small),
    }
    assert releases_gil(calls[call], longest=0.85 if call == "many_small" else 0.5)


def test_one_cipher_many_threads(algorithm: str) -> None:
    c = getattr(gcmsiv, algorithm)(bytes(range(32)))
    jobs = [
        (bytes([i]) * 12, bytes([i % 256]) * (i * 997 % 20000), bytes([i]) * (i % 50)) for i in range(200)
    ]
    expected = [c.encrypt(*job) for job in jobs]

    def work(k: int) -> bool:
        for (nonce, data, aad), sealed in list(zip(jobs, expected, strict=True))[k::4]:
            if c.encrypt(nonce, data, aad) != sealed or c.decrypt(nonce, sealed, aad) != data:
                return False
        return c.encrypt_many(jobs) == expected and c.decrypt_many(
            (n, s, a) for (n, _, a), s in zip(jobs, expected, strict=True)
        ) == [d for _, d, _ in jobs]

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(work, range(8)))
