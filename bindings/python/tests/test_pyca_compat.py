"""The drop-in promise: the same calls on gcmsiv and on pyca/cryptography give the same
results, or raise the same exception types.

Each case is a function of a library namespace, run once against each library; outcomes
are compared as ("ok", value) or ("raises", exception type name), with both libraries'
``InvalidTag`` counted as the same. The deliberate differences live in
``test_differences.py``.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import cryptography.exceptions
import gcmsiv
import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import aead

PYCA = SimpleNamespace(AESGCMSIV=aead.AESGCMSIV, AESGCM=aead.AESGCM)
OURS = SimpleNamespace(AESGCMSIV=gcmsiv.AESGCMSIV, AESGCM=gcmsiv.AESGCM)
INVALID_TAG = (gcmsiv.InvalidTag, cryptography.exceptions.InvalidTag)

KEY = bytes(range(32))
NONCE = bytes(range(100, 112))
DATA = bytes(range(200, 224))  # 24 bytes: divisible into 2-, 3- and 4-byte items
AAD = b"header"

Case = Callable[[SimpleNamespace], Any]


def outcome(case: Case, lib: SimpleNamespace) -> tuple[str, Any]:
    try:
        return ("ok", case(lib))
    except INVALID_TAG:
        return ("raises", "InvalidTag")
    except Exception as e:  # noqa: BLE001 - the type is the outcome
        return ("raises", type(e).__name__)


# Byte strings as every kind of buffer pyca accepts: each must give pyca's answer.
BUFFER_KINDS: dict[str, Callable[[bytes], Any]] = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": lambda b: memoryview(b),
    "memoryview-of-bytearray": lambda b: memoryview(bytearray(b)),
    "readonly-memoryview": lambda b: memoryview(bytearray(b)).toreadonly(),
    "memoryview-slice": lambda b: memoryview(b"\xff" + b + b"\xff")[1:-1],
    "memoryview-cast-c": lambda b: memoryview(b).cast("c"),
    "memoryview-2d": lambda b: (
        memoryview(b).cast("B", (2, len(b) // 2)) if len(b) % 2 == 0 else memoryview(b)
    ),
    "array-B": lambda b: array.array("B", b),
    "numpy-uint8": lambda b: np.frombuffer(b, dtype=np.uint8).copy(),
}
# Objects pyca refuses, and the exception type it refuses them with.
NOT_BYTE_BUFFERS: dict[str, Callable[[bytes], Any]] = {
    "str": lambda b: b.decode("latin-1"),
    "int": lambda b: len(b),
    "bool": lambda b: True,
    "float": lambda b: 1.5,
    "list": lambda b: list(b),
    "array-b": lambda b: array.array("b", [x - 128 for x in b]),
    "array-I": lambda b: array.array("I", bytes(4 * ((len(b) + 3) // 4))),
    "numpy-int32": lambda b: np.zeros(6, dtype=np.int32),
    "numpy-bool": lambda b: np.zeros(len(b), dtype=bool),
    "memoryview-strided": lambda b: memoryview(b + b)[::2],
    "numpy-fortran": lambda b: np.zeros((4, 6), dtype=np.uint8, order="F"),
}
ALL_KINDS = {**BUFFER_KINDS, **NOT_BYTE_BUFFERS}

NONCE_LENGTHS = {
    "AESGCMSIV": [0, 1, 8, 11, 12, 13, 16, 128],
    "AESGCM": [0, 1, 7, 8, 11, 12, 13, 16, 64, 128, 129, 256],
}


def sealed(algorithm: str, nonce: bytes = NONCE, data: bytes = DATA, aad: bytes | None = AAD) -> bytes:
    return getattr(aead, algorithm)(KEY).encrypt(nonce, data, aad)


def cases(algorithm: str) -> Iterator[tuple[str, Case]]:
    def cls(lib: SimpleNamespace) -> Any:
        return getattr(lib, algorithm)

    good = sealed(algorithm)

    # Keys: every kind of object, every length around the valid ones (24: see
    # test_differences.py), by keyword too.
    for kind, make in ALL_KINDS.items():
        yield f"key-{kind}", lambda lib, make=make: cls(lib)(make(KEY)).encrypt(NONCE, DATA, AAD)
    for n in (0, 1, 15, 16, 17, 31, 32, 33, 48, 64):
        yield f"key-len-{n}", lambda lib, n=n: cls(lib)(bytes(range(n))).encrypt(NONCE, DATA, AAD)
    yield "key-keyword", lambda lib: cls(lib)(key=KEY).encrypt(NONCE, DATA, AAD)
    yield "key-missing", lambda lib: cls(lib)()
    yield "key-two-args", lambda lib: cls(lib)(KEY, KEY)

    # Each argument of encrypt and decrypt as every kind of object.
    for kind, make in ALL_KINDS.items():
        yield f"encrypt-nonce-{kind}", lambda lib, make=make: cls(lib)(KEY).encrypt(make(NONCE), DATA, AAD)
        yield f"encrypt-data-{kind}", lambda lib, make=make: cls(lib)(KEY).encrypt(NONCE, make(DATA), AAD)
        yield f"encrypt-aad-{kind}", lambda lib, make=make: cls(lib)(KEY).encrypt(NONCE, DATA, make(AAD))
        yield f"decrypt-nonce-{kind}", lambda lib, make=make: cls(lib)(KEY).decrypt(make(NONCE), good, AAD)
        yield f"decrypt-data-{kind}", lambda lib, make=make: cls(lib)(KEY).decrypt(NONCE, make(good), AAD)
        yield f"decrypt-aad-{kind}", lambda lib, make=make: cls(lib)(KEY).decrypt(NONCE, good, make(AAD))
    yield "encrypt-nonce-None", lambda lib: cls(lib)(KEY).encrypt(None, DATA, AAD)
    yield "encrypt-data-None", lambda lib: cls(lib)(KEY).encrypt(NONCE, None, AAD)
    yield "encrypt-aad-None", lambda lib: cls(lib)(KEY).encrypt(NONCE, DATA, None)
    yield "decrypt-aad-None", lambda lib: cls(lib)(KEY).decrypt(NONCE, sealed(algorithm, aad=None), None)
    yield "aad-None-equals-empty", lambda lib: cls(lib)(KEY).decrypt(NONCE, sealed(algorithm, aad=b""), None)
    yield "aad-empty-equals-None", lambda lib: cls(lib)(KEY).decrypt(NONCE, sealed(algorithm, aad=None), b"")

    # Nonce lengths.
    for n in NONCE_LENGTHS[algorithm]:
        nonce = bytes(range(n))
        yield f"encrypt-nonce-len-{n}", lambda lib, nonce=nonce: cls(lib)(KEY).encrypt(nonce, DATA, AAD)
        yield f"decrypt-nonce-len-{n}", lambda lib, nonce=nonce: cls(lib)(KEY).decrypt(nonce, good, AAD)

    # Lengths of data, and what decrypt makes of short or tampered input.
    for n in (0, 1, 15, 16, 17, 64, 4095, 4096, 4097, 70000):
        data = bytes(i % 251 for i in range(n))
        yield f"encrypt-len-{n}", lambda lib, data=data: cls(lib)(KEY).encrypt(NONCE, data, AAD)
        yield (
            f"roundtrip-len-{n}",
            lambda lib, data=data: cls(lib)(KEY).decrypt(NONCE, sealed(algorithm, data=data), AAD),
        )
    for n in (0, 1, 15, 16):
        yield f"decrypt-short-{n}", lambda lib, n=n: cls(lib)(KEY).decrypt(NONCE, good[:n], AAD)
    for i in (0, len(DATA) - 1, len(DATA), len(good) - 1):
        bad = bytearray(good)
        bad[i] ^= 0x80
        yield f"decrypt-flip-{i}", lambda lib, bad=bytes(bad): cls(lib)(KEY).decrypt(NONCE, bad, AAD)
    yield "decrypt-wrong-aad", lambda lib: cls(lib)(KEY).decrypt(NONCE, good, b"other")
    yield "decrypt-aad-missing-given-None", lambda lib: cls(lib)(KEY).decrypt(NONCE, good, None)
    yield "decrypt-wrong-nonce", lambda lib: cls(lib)(KEY).decrypt(bytes(12), good, AAD)
    yield "decrypt-wrong-key", lambda lib: cls(lib)(bytes(32)).decrypt(NONCE, good, AAD)
    yield "decrypt-truncated", lambda lib: cls(lib)(KEY).decrypt(NONCE, good[:-1], AAD)
    yield "decrypt-extended", lambda lib: cls(lib)(KEY).decrypt(NONCE, good + b"\0", AAD)
    yield "decrypt-empty-message", lambda lib: cls(lib)(KEY).decrypt(NONCE, sealed(algorithm, data=b""), AAD)

    # Signatures: keywords, missing and extra arguments.
    yield "encrypt-keywords", lambda lib: cls(lib)(KEY).encrypt(nonce=NONCE, data=DATA, associated_data=AAD)
    yield "decrypt-keywords", lambda lib: cls(lib)(KEY).decrypt(nonce=NONCE, data=good, associated_data=AAD)
    yield "encrypt-aad-missing", lambda lib: cls(lib)(KEY).encrypt(NONCE, DATA)
    yield "decrypt-aad-missing", lambda lib: cls(lib)(KEY).decrypt(NONCE, good)
    yield "encrypt-extra-arg", lambda lib: cls(lib)(KEY).encrypt(NONCE, DATA, AAD, None)
    yield "encrypt-unknown-keyword", lambda lib: cls(lib)(KEY).encrypt(NONCE, DATA, AAD, tag_length=16)

    # encrypt_into / decrypt_into: output kinds and sizes, and which error comes first.
    def into(method: str, data: bytes, make_out: Callable[[], Any], nonce: bytes = NONCE) -> Case:
        def run(lib: SimpleNamespace) -> Any:
            out = make_out()
            n = getattr(cls(lib)(KEY), method)(nonce, data, AAD, out)
            return n, bytes(memoryview(out).cast("B")) if isinstance(out, memoryview) else bytes(out)

        return run

    outs: dict[str, Callable[[int], Callable[[], Any]]] = {
        "bytearray": lambda n: lambda: bytearray(n),
        "memoryview": lambda n: lambda: memoryview(bytearray(n)),
        "array-B": lambda n: lambda: array.array("B", bytes(n)),
        "numpy-uint8": lambda n: lambda: np.zeros(n, dtype=np.uint8),
        "bytes": lambda n: lambda: bytes(n),
        "readonly-memoryview": lambda n: lambda: memoryview(bytearray(n)).toreadonly(),
        "memoryview-strided": lambda n: lambda: memoryview(bytearray(2 * n))[::2],
        "array-I": lambda n: lambda: array.array("I", bytes(4 * n)),
    }
    for kind, out in outs.items():
        for delta in (-1, 0, 1):
            yield f"encrypt_into-{kind}-{delta:+d}", into("encrypt_into", DATA, out(len(good) + delta))
            yield f"decrypt_into-{kind}-{delta:+d}", into("decrypt_into", good, out(len(DATA) + delta))
    yield "encrypt_into-empty", into("encrypt_into", b"", outs["bytearray"](16))
    yield "decrypt_into-empty", into("decrypt_into", sealed(algorithm, data=b""), outs["bytearray"](0))
    yield "encrypt_into-bad-nonce-bad-size", into("encrypt_into", DATA, outs["bytearray"](3), nonce=b"short")
    yield "encrypt_into-bad-nonce-readonly", into("encrypt_into", DATA, outs["bytes"](3), nonce=b"short")
    yield "decrypt_into-short-bad-size", into("decrypt_into", good[:10], outs["bytearray"](3))
    yield (
        "decrypt_into-short-bad-nonce",
        into("decrypt_into", good[:10], outs["bytearray"](0), nonce=b"short"),
    )
    yield "decrypt_into-bad-tag-bad-size", into("decrypt_into", good[:-1] + b"\0", outs["bytearray"](3))
    yield (
        "encrypt_into-keywords",
        lambda lib: cls(lib)(KEY).encrypt_into(
            nonce=NONCE, data=DATA, associated_data=None, buf=bytearray(len(good))
        ),
    )
    yield (
        "decrypt_into-keywords",
        lambda lib: cls(lib)(KEY).decrypt_into(
            nonce=NONCE, data=good, associated_data=AAD, buf=bytearray(len(DATA))
        ),
    )
    yield "encrypt_into-buf-missing", lambda lib: cls(lib)(KEY).encrypt_into(NONCE, DATA, AAD)

    # generate_key (192: see test_differences.py). Random, so the length is compared.
    for bits in (128, 256, 0, 64, 129, 512, -1, -128, 2**70, "128", 128.0, None, True, np.int64(128)):
        yield f"generate_key-{bits!r}", lambda lib, bits=bits: len(cls(lib).generate_key(bits))
    yield "generate_key-keyword", lambda lib: len(cls(lib).generate_key(bit_length=256))
    yield "generate_key-on-instance", lambda lib: len(cls(lib)(KEY).generate_key(128))
    yield "generate_key-type", lambda lib: type(cls(lib).generate_key(128)).__name__
    yield (
        "generate_key-usable",
        lambda lib: cls(lib)(cls(lib).generate_key(256)).decrypt(
            NONCE, cls(lib)(KEY).encrypt(NONCE, b"", None), None
        ),
    )

    # The class itself.
    yield "subclass", lambda lib: type("Sub", (cls(lib),), {})
    yield "equality", lambda lib: cls(lib)(KEY) == cls(lib)(KEY)
    yield "hashable", lambda lib: isinstance(hash(cls(lib)(KEY)), int)
    yield "pickle", lambda lib: __import__("pickle").dumps(cls(lib)(KEY))
    yield "copy", lambda lib: __import__("copy").copy(cls(lib)(KEY))
    yield "set-attribute", lambda lib: setattr(cls(lib)(KEY), "x", 1)
    yield (
        "public-methods",
        lambda lib: sorted(
            m
            for m in dir(cls(lib))
            if not m.startswith("_") and not m.endswith("_many") and "random_nonce" not in m
        ),
    )


ALL_CASES = [
    (f"{algorithm}-{name}", case) for algorithm in ("AESGCMSIV", "AESGCM") for name, case in cases(algorithm)
]


@pytest.mark.parametrize(("name", "case"), ALL_CASES, ids=[name for name, _ in ALL_CASES])
def test_same_outcome_as_pyca(name: str, case: Case) -> None:
    theirs = outcome(case, PYCA)
    ours = outcome(case, OURS)
    assert ours == theirs


def test_the_cases_cover_both_outcomes() -> None:
    """The comparison is only worth something if pyca both accepts and refuses."""
    kinds = {outcome(case, PYCA)[0] for _, case in ALL_CASES}
    refused = {outcome(case, PYCA)[1] for _, case in ALL_CASES if outcome(case, PYCA)[0] == "raises"}
    assert kinds == {"ok", "raises"}
    assert {"InvalidTag", "ValueError", "TypeError", "BufferError", "OverflowError"} <= refused
    assert len(ALL_CASES) > 400
