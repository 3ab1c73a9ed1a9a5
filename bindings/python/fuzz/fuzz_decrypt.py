#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris, libFuzzer) of the package's decrypt paths.

Arbitrary keys, nonces, associated data and (possibly forged) ciphertexts go to
``decrypt``, ``decrypt_into`` (a separate buffer, and in place) and ``decrypt_many`` of
``AESGCMSIV`` and ``AESGCM``, and to pyca/cryptography's classes of the same names as the
oracle: the same verdict and plaintext; every failure ``InvalidTag``; a failed
``decrypt_into`` leaves the ciphertext in its output, never plaintext (the package's
README); what opens is what ``encrypt`` makes.

Run by ``scripts/fuzz.sh`` in a virtual environment with the package built with
SanitizerCoverage (so that libFuzzer also sees the Rust extension's edges) and atheris's
libFuzzer preloaded; ``python fuzz_decrypt.py CORPUS -max_total_time=N`` by hand.
"""

import sys

import atheris

with atheris.instrument_imports():
    import gcmsiv

from cryptography.exceptions import InvalidTag as PycaInvalidTag
from cryptography.hazmat.primitives.ciphers import aead as pyca

CLASSES = [(gcmsiv.AESGCMSIV, pyca.AESGCMSIV), (gcmsiv.AESGCM, pyca.AESGCM)]


def oracle(cls, key: bytes, nonce: bytes, data: bytes, ad: bytes | None) -> bytes | None:
    try:
        return cls(key).decrypt(nonce, data, ad)
    except PycaInvalidTag:
        return None


def ours(cipher, nonce: bytes, data: bytes, ad: bytes | None) -> bytes | None:
    try:
        return cipher.decrypt(nonce, data, ad)
    except gcmsiv.InvalidTag:
        return None


def test_one_input(raw: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(raw)
    which = fdp.ConsumeIntInRange(0, 1)
    key = fdp.ConsumeBytes(16 if fdp.ConsumeBool() else 32).ljust(16, b"\0")
    if len(key) not in (16, 32):
        key = key[:16]
    nonce_len = 12 if which == 0 else fdp.ConsumeIntInRange(8, 64)
    nonce = fdp.ConsumeBytes(nonce_len).ljust(nonce_len, b"\0")
    ad = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64)) if fdp.ConsumeBool() else None
    forge = fdp.ConsumeBool()
    data = fdp.ConsumeBytes(fdp.remaining_bytes())
    ours_cls, pyca_cls = CLASSES[which]
    cipher = ours_cls(key)
    if not forge:
        # Half the inputs are authentic messages (the data as plaintext), so that the
        # paths past the tag check run as often as the failures.
        data = cipher.encrypt(nonce, data, ad)

    expected = oracle(pyca_cls, key, nonce, data, ad)
    got = ours(cipher, nonce, data, ad)
    assert got == expected, (which, len(data))
    if got is not None:
        assert cipher.encrypt(nonce, got, ad) == data

    body = max(len(data) - 16, 0)
    out = bytearray(b"\xa5" * body)
    try:
        written = cipher.decrypt_into(nonce, data, ad, out)
        assert expected is not None and written == body and bytes(out) == expected
    except gcmsiv.InvalidTag:
        assert expected is None
        assert bytes(out) == data[:body], "a failed decrypt_into left other than the ciphertext"

    buf = bytearray(data)
    try:
        cipher.decrypt_into(nonce, buf, ad, memoryview(buf)[:body])
        assert expected is not None and bytes(buf[:body]) == expected
    except gcmsiv.InvalidTag:
        assert expected is None

    many = cipher.decrypt_many([(nonce, data, ad), (nonce, data + b"x", ad)])
    assert many[0] == expected
    assert many[1] == oracle(pyca_cls, key, nonce, data + b"x", ad)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
