"""The nonce-managed calls: ``encrypt_random_nonce`` returns nonce || ciphertext || tag, the
same bytes ``encrypt`` gives with that nonce; ``decrypt_random_nonce`` takes it back, and
every damaged or short input is ``InvalidTag``; the batch forms agree with the single ones."""

from __future__ import annotations

import os

import gcmsiv
import pytest


def make(algorithm: str, size: int = 32):
    return getattr(gcmsiv, algorithm)(os.urandom(size))


@pytest.mark.parametrize("size", [16, 32])
@pytest.mark.parametrize("length", [0, 1, 15, 16, 17, 4095, 4096, 70_000])
def test_round_trip_and_layout(algorithm: str, size: int, length: int) -> None:
    cipher = make(algorithm, size)
    data, aad = os.urandom(length), os.urandom(length % 40)
    sealed = cipher.encrypt_random_nonce(data, aad)
    assert isinstance(sealed, bytes) and len(sealed) == length + 28
    # The nonce is in front, and the rest is what encrypt gives with it.
    assert sealed[12:] == cipher.encrypt(sealed[:12], data, aad)
    assert cipher.decrypt_random_nonce(sealed, aad) == data
    assert cipher.decrypt_random_nonce(bytearray(sealed), memoryview(aad)) == data


def test_nonces_are_fresh(algorithm: str) -> None:
    cipher = make(algorithm)
    nonces = {cipher.encrypt_random_nonce(b"same", None)[:12] for _ in range(2000)}
    assert len(nonces) == 2000


def test_every_change_fails(algorithm: str) -> None:
    cipher = make(algorithm)
    sealed = cipher.encrypt_random_nonce(b"attack at dawn", b"header")
    for at in range(len(sealed)):
        damaged = bytearray(sealed)
        damaged[at] ^= 0x01
        with pytest.raises(gcmsiv.InvalidTag):
            cipher.decrypt_random_nonce(bytes(damaged), b"header")
    with pytest.raises(gcmsiv.InvalidTag):
        cipher.decrypt_random_nonce(sealed, b"other")
    with pytest.raises(gcmsiv.InvalidTag):
        cipher.decrypt_random_nonce(sealed, None)
    with pytest.raises(gcmsiv.InvalidTag):
        make(algorithm).decrypt_random_nonce(sealed, b"header")
    # Shorter than nonce + tag: the length is the attacker's, so it is the same failure.
    for cut in range(28):
        with pytest.raises(gcmsiv.InvalidTag):
            cipher.decrypt_random_nonce(sealed[:cut], b"header")


def test_batches(algorithm: str) -> None:
    cipher = make(algorithm)
    items = [(os.urandom(n), os.urandom(n % 5) if n % 3 else None) for n in (0, 1, 100, 5000, 70_000)]
    sealed = cipher.encrypt_random_nonce_many(items)
    assert len(sealed) == len(items)
    assert len({s[:12] for s in sealed}) == len(items)
    for (data, aad), s in zip(items, sealed, strict=True):
        assert len(s) == len(data) + 28
        assert cipher.decrypt_random_nonce(s, aad) == data
    forged = bytearray(sealed[2])
    forged[20] ^= 4
    opened = cipher.decrypt_random_nonce_many(
        [(sealed[0], items[0][1]), (bytes(forged), items[2][1]), (sealed[1][:27], None), (sealed[3], b"x")]
        + [(s, aad) for s, (_, aad) in zip(sealed[3:], items[3:], strict=True)]
    )
    assert opened == [items[0][0], None, None, None, items[3][0], items[4][0]]
    # Items from a generator refilling one buffer are each read as they were.
    buffer = bytearray(8)

    def refill():
        for i in range(3):
            buffer[:] = bytes([i]) * 8
            yield buffer, None

    sealed = cipher.encrypt_random_nonce_many(refill())
    assert [cipher.decrypt_random_nonce(s, None) for s in sealed] == [bytes([i]) * 8 for i in range(3)]
    assert cipher.encrypt_random_nonce_many([]) == []


def test_batch_misuse(algorithm: str) -> None:
    cipher = make(algorithm)
    with pytest.raises(TypeError, match=r"items\[1\]"):
        cipher.encrypt_random_nonce_many([(b"a", None), (b"a", None, None)])
    with pytest.raises(TypeError, match=r"items\[0\] data"):
        cipher.encrypt_random_nonce_many([("text", None)])
    with pytest.raises(TypeError, match=r"items\[0\] sealed"):
        cipher.decrypt_random_nonce_many([(5, None)])
    with pytest.raises(TypeError):
        cipher.encrypt_random_nonce("text", None)
