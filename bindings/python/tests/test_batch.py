"""encrypt_many and decrypt_many: the same bytes as one call per message, per-message
results for decryption, and every misuse refused before any work."""

from __future__ import annotations

import array
import random

import gcmsiv
import pytest

KEY = bytes(range(32))


@pytest.fixture
def cipher(algorithm: str) -> gcmsiv.AESGCMSIV | gcmsiv.AESGCM:
    return getattr(gcmsiv, algorithm)(KEY)


def items(count: int, seed: int = 1) -> list[tuple[bytes, bytes, bytes | None]]:
    rng = random.Random(seed)
    sizes = [0, 1, 15, 16, 17, 64, 300, 4096, 9000]
    out = []
    for i in range(count):
        data = rng.randbytes(rng.choice(sizes))
        aad = None if i % 3 == 0 else rng.randbytes(rng.choice([0, 5, 40]))
        out.append((rng.randbytes(12), data, aad))
    return out


@pytest.mark.parametrize("count", [0, 1, 2, 50, 1000])
def test_encrypt_many_matches_encrypt(cipher, count: int) -> None:
    batch = items(count)
    assert cipher.encrypt_many(batch) == [cipher.encrypt(*item) for item in batch]


@pytest.mark.parametrize("count", [1, 50, 1000])
def test_decrypt_many_reports_each_failure(cipher, count: int) -> None:
    batch = items(count)
    sealed = [cipher.encrypt(*item) for item in batch]
    expected: list[bytes | None] = []
    to_open = []
    for i, ((nonce, data, aad), ct) in enumerate(zip(batch, sealed, strict=True)):
        if i % 4 == 1:
            ct = ct[:-1] + bytes([ct[-1] ^ 1])  # bad tag
            expected.append(None)
        elif i % 4 == 2 and aad:
            aad = aad + b"!"  # wrong associated data
            expected.append(None)
        elif i % 7 == 5:
            ct = ct[:15]  # shorter than a tag
            expected.append(None)
        else:
            expected.append(data)
        to_open.append((nonce, ct, aad))
    assert cipher.decrypt_many(to_open) == expected
    for (nonce, ct, aad), want in zip(to_open, expected, strict=True):
        if want is None:
            with pytest.raises(gcmsiv.InvalidTag):
                cipher.decrypt(nonce, ct, aad)


def test_any_iterable_and_any_buffer(cipher) -> None:
    batch = items(20)
    expected = [cipher.encrypt(*item) for item in batch]
    assert cipher.encrypt_many(item for item in batch) == expected
    assert cipher.encrypt_many(tuple(batch)) == expected
    mixed = [(bytearray(n), memoryview(d), None if a is None else array.array("B", a)) for n, d, a in batch]
    assert cipher.encrypt_many(mixed) == expected
    opened = cipher.decrypt_many(
        (memoryview(n), bytearray(ct), a) for (n, _, a), ct in zip(batch, expected, strict=True)
    )
    assert opened == [d for _, d, _ in batch]


def test_empty_batch(cipher) -> None:
    assert cipher.encrypt_many([]) == []
    assert cipher.decrypt_many([]) == []


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (
            [b"n" * 12, b"data", None],
            TypeError,
            r"items\[2\] must be a \(nonce, data, associated_data\) tuple",
        ),
        ((b"n" * 12, b"data"), TypeError, r"items\[2\] must be"),
        ((b"n" * 12, b"data", None, None), TypeError, r"items\[2\] must be"),
        (None, TypeError, r"items\[2\] must be"),
        ((b"n" * 5, b"data", None), ValueError, r"items\[2\] nonce: Nonce must be"),
        (("n" * 12, b"data", None), TypeError, r"items\[2\] nonce: "),
        ((b"n" * 12, "data", None), TypeError, r"items\[2\] data: "),
        ((b"n" * 12, b"data", 7), TypeError, r"items\[2\] associated_data: "),
        ((b"n" * 12, memoryview(b"data" * 2)[::2], None), BufferError, r"items\[2\] data: .*contiguous"),
    ],
)
def test_misuse_raises_before_any_work(cipher, bad, error, message) -> None:
    batch: list = [(bytes(12), b"a", None), (bytes(12), b"b", None), bad, (bytes(12), b"c", None)]
    with pytest.raises(error, match=message):
        cipher.encrypt_many(batch)
    with pytest.raises(error, match=message):
        cipher.decrypt_many(batch)


def test_items_must_be_iterable(cipher) -> None:
    with pytest.raises(TypeError):
        cipher.encrypt_many(5)
    with pytest.raises(TypeError):
        cipher.decrypt_many(None)


def test_error_in_the_iterable_propagates(cipher) -> None:
    def broken():
        yield (bytes(12), b"a", None)
        raise KeyError("from the generator")

    with pytest.raises(KeyError, match="from the generator"):
        cipher.encrypt_many(broken())


def test_one_buffer_in_many_items(cipher) -> None:
    shared = bytearray(b"x" * 5000)
    batch = [(bytes(12), shared, None), (bytes(12), memoryview(shared)[1:], shared)]
    assert cipher.encrypt_many(batch) == [cipher.encrypt(*item) for item in batch]


def test_items_are_read_as_they_come(cipher) -> None:
    # A generator that refills one buffer for each item: every item is taken as it
    # was when yielded, not as the buffer ends up.
    records = [bytes([i]) * 32 for i in range(4)]
    headers = [bytes([0x40 + i]) * 8 for i in range(4)]
    nonces = [bytes([i]) * 12 for i in range(4)]

    def refilled():
        data, aad = bytearray(32), bytearray(8)
        for nonce, record, header in zip(nonces, records, headers, strict=True):
            data[:] = record
            aad[:] = header
            yield (nonce, data, aad)

    expected = [cipher.encrypt(n, r, h) for n, r, h in zip(nonces, records, headers, strict=True)]
    assert cipher.encrypt_many(refilled()) == expected

    def refilled_ciphertexts():
        data, aad = bytearray(32 + 16), bytearray(8)
        for nonce, ct, header in zip(nonces, expected, headers, strict=True):
            data[:] = ct
            aad[:] = header
            yield (nonce, data, aad)

    assert cipher.decrypt_many(refilled_ciphertexts()) == records
