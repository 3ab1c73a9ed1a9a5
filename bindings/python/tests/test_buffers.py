"""Buffers beyond what the pyca comparison covers: views that share memory with the output,
writes that stay inside the given view, and sizes on both sides of the GIL threshold."""

from __future__ import annotations

import array

import gcmsiv
import numpy as np
import pytest

NONCE = bytes(range(12))
SIZES = [0, 1, 16, 4079, 4080, 4096, 70_000]


@pytest.fixture
def cipher(algorithm: str) -> gcmsiv.AESGCMSIV | gcmsiv.AESGCM:
    return getattr(gcmsiv, algorithm)(bytes(range(32)))


def message(size: int) -> bytes:
    return bytes((7 * i + 3) % 256 for i in range(size))


@pytest.mark.parametrize("size", SIZES)
def test_encrypt_in_place(cipher, size: int) -> None:
    """The plaintext as a view of the output buffer's start."""
    buf = bytearray(message(size) + bytes(16))
    assert cipher.encrypt_into(NONCE, memoryview(buf)[:size], b"ad", buf) == size + 16
    assert buf == cipher.encrypt(NONCE, message(size), b"ad")


@pytest.mark.parametrize("size", SIZES)
def test_decrypt_in_place(cipher, size: int) -> None:
    buf = bytearray(cipher.encrypt(NONCE, message(size), b"ad"))
    assert cipher.decrypt_into(NONCE, buf, b"ad", memoryview(buf)[:size]) == size
    assert buf[:size] == message(size)


@pytest.mark.parametrize("shift", [1, 3, 16, 17])
@pytest.mark.parametrize("size", [40, 5000])
def test_overlapping_input_and_output(cipher, shift: int, size: int) -> None:
    """Input and output overlapping at an offset, either way round."""
    expected = cipher.encrypt(NONCE, message(size), None)
    buf = bytearray(shift) + bytearray(message(size)) + bytearray(16)
    cipher.encrypt_into(NONCE, memoryview(buf)[shift : shift + size], None, memoryview(buf)[: size + 16])
    assert buf[: size + 16] == expected
    buf = bytearray(message(size)) + bytearray(16 + shift)
    cipher.encrypt_into(NONCE, memoryview(buf)[:size], None, memoryview(buf)[shift : shift + size + 16])
    assert buf[shift : shift + size + 16] == expected
    buf = bytearray(shift) + bytearray(expected)
    cipher.decrypt_into(NONCE, memoryview(buf)[shift:], None, memoryview(buf)[:size])
    assert buf[:size] == message(size)
    # The output overwrites the tag: it must have been read first.
    buf = bytearray(expected) + bytearray(shift)
    cipher.decrypt_into(
        NONCE, memoryview(buf)[: size + 16], None, memoryview(buf)[shift + 16 : shift + 16 + size]
    )
    assert buf[shift + 16 : shift + 16 + size] == message(size)


def test_nonce_and_associated_data_inside_the_output(cipher) -> None:
    """Every input is read before the output is written, even one the output overwrites."""
    size = 64
    # The data moves 8 bytes down onto the nonce and the associated data.
    buf = bytearray(message(size + 16 + 8))
    nonce, aad, data = bytes(buf[:12]), bytes(buf[12:40]), bytes(buf[8 : 8 + size])
    view = memoryview(buf)
    cipher.encrypt_into(view[:12], view[8 : 8 + size], view[12:40], view[: size + 16])
    assert buf[: size + 16] == cipher.encrypt(nonce, data, aad)

    sealed = cipher.encrypt(NONCE, data, aad)
    buf = bytearray(aad) + bytearray(sealed)
    view = memoryview(buf)
    cipher.decrypt_into(NONCE, view[len(aad) :], view[: len(aad)], view[:size])
    assert buf[:size] == data


@pytest.mark.parametrize("size", [5, 5000])
def test_writes_stay_inside_the_view(cipher, size: int) -> None:
    big = bytearray(b"\xee" * (size + 100))
    cipher.encrypt_into(NONCE, message(size), None, memoryview(big)[40 : 40 + size + 16])
    assert big[:40] == b"\xee" * 40 and big[40 + size + 16 :] == b"\xee" * (100 - 56)
    assert big[40 : 40 + size + 16] == cipher.encrypt(NONCE, message(size), None)


@pytest.mark.parametrize("size", [24, 6000])
def test_every_output_kind(cipher, size: int) -> None:
    expected = cipher.encrypt(NONCE, message(size), None)
    n = size + 16
    for out in (
        bytearray(n),
        memoryview(bytearray(n)),
        array.array("B", bytes(n)),
        np.zeros(n, dtype=np.uint8),
        np.zeros((2, n // 2), dtype=np.uint8),
        memoryview(bytearray(n)).cast("c"),
    ):
        cipher.encrypt_into(NONCE, message(size), None, out)
        assert memoryview(out).tobytes() == expected, type(out)


@pytest.mark.parametrize("size", [24, 6000])
def test_every_input_kind_gives_the_same_bytes(cipher, size: int) -> None:
    data = message(size)
    expected = cipher.encrypt(NONCE, data, data[:10])
    kinds = [
        bytes,
        bytearray,
        memoryview,
        lambda b: memoryview(bytearray(b)).toreadonly(),
        lambda b: array.array("B", b),
        lambda b: np.frombuffer(b, dtype=np.uint8),
        lambda b: np.frombuffer(b, dtype=np.uint8).reshape(2, -1),
        lambda b: memoryview(b"..." + b)[3:],
    ]
    for kind in kinds:
        assert cipher.encrypt(kind(NONCE), kind(data), kind(data[:10])) == expected
        assert cipher.decrypt(kind(NONCE), kind(expected), kind(data[:10])) == data


def test_results_are_new_bytes_objects(cipher) -> None:
    data = message(100)
    a, b = cipher.encrypt(NONCE, data, None), cipher.encrypt(NONCE, data, None)
    assert type(a) is bytes and a == b and a is not b
    assert type(cipher.decrypt(NONCE, a, None)) is bytes
    assert cipher.decrypt(NONCE, cipher.encrypt(NONCE, b"", None), None) == b""


def test_exported_buffer_cannot_be_resized_mid_call(cipher) -> None:
    """While a call holds a bytearray's buffer, Python refuses to resize it, so the memory
    the cipher reads and writes stays put; afterwards the export is released."""
    buf = bytearray(message(40))
    cipher.encrypt(NONCE, buf, None)
    buf.extend(b"more")  # released: resizing works again
    out = bytearray(len(buf) + 16)
    cipher.encrypt_into(NONCE, buf, None, out)
    out.extend(b"x")


def test_a_subclass_of_bytes_is_borrowed_like_bytes(cipher) -> None:
    class Tagged(bytes):
        pass

    data = Tagged(message(5000))
    assert cipher.encrypt(Tagged(NONCE), data, Tagged(b"ad")) == cipher.encrypt(NONCE, bytes(data), b"ad")


@pytest.mark.parametrize("size", [100, 4093, 4094, 70_000])
@pytest.mark.parametrize("source", ["bytes", "bytearray", "in place"])
def test_failed_decrypt_into_holds_the_ciphertext(cipher, size: int, source: str) -> None:
    """Below and above the GIL threshold (4096 bytes of data plus associated data, from which
    the decryption runs in private memory), from immutable and mutable inputs."""
    forged = bytearray(cipher.encrypt(NONCE, message(size), b"ad"))
    forged[-1] ^= 1
    data = bytes(forged) if source == "bytes" else forged
    out = memoryview(forged)[:size] if source == "in place" else bytearray(b"\x55" * size)
    with pytest.raises(gcmsiv.InvalidTag):
        cipher.decrypt_into(NONCE, data, b"ad", out)
    assert bytes(out) == bytes(forged[:size])
    good = cipher.encrypt(NONCE, message(size), b"ad")
    assert cipher.decrypt_into(NONCE, good if source == "bytes" else bytearray(good), b"ad", out) == size
    assert bytes(out) == message(size)


def test_no_plaintext_seen_by_another_thread(cipher) -> None:
    """While forged messages are opened into a buffer with the GIL released, a thread
    watching that buffer never sees their plaintext (it did when the decryption ran in the
    caller's buffer)."""
    import threading

    size = 4 << 20
    # Sealed under other associated data: the keystream (from the tag, for AES-GCM-SIV) is
    # the right one, so the unauthenticated plaintext is the real one.
    sealed = cipher.encrypt(NONCE, b"\x5a" * size, b"other")
    out = bytearray(size)
    done = threading.Event()
    seen = looks = 0

    def watch() -> None:
        nonlocal seen, looks
        # Eight bytes of 0x5A in a row: the plaintext, not a chance byte of the ciphertext
        # (which a failed call writes back).
        rows = np.frombuffer(out, dtype=np.uint64)[::128]
        while not done.is_set():
            seen += int(np.count_nonzero(rows == 0x5A5A5A5A5A5A5A5A))
            looks += 1

    spy = threading.Thread(target=watch)
    spy.start()
    try:
        for _ in range(16):
            with pytest.raises(gcmsiv.InvalidTag):
                cipher.decrypt_into(NONCE, sealed, None, out)
    finally:
        done.set()
        spy.join()
    assert looks > 0
    assert seen == 0
