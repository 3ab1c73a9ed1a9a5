"""gcmsiv.arrow: column encryption of pyarrow arrays, checked value by value against the
one-message API and pyca/cryptography, with every bad input the calls refuse."""

from __future__ import annotations

import ctypes
import gc
import mmap
import os
from collections.abc import Callable, Iterator

import gcmsiv
import pyarrow as pa
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from gcmsiv.arrow import InvalidTag, decrypt_array, derive_column_key, encrypt_array
from test_threads import releases_gil

KEY = bytes(range(32))
VALUES = [
    b"alice",
    None,
    b"",
    b"x" * 100,
    "\u00e9t\u00e9".encode(),
    None,
    "\u00fc\u20ac\U0001d11e".encode() * 40,
]
TYPES = [pa.binary(), pa.large_binary(), pa.string(), pa.large_string(), pa.binary_view(), pa.string_view()]


def typed(values: list[bytes | None], t: pa.DataType) -> pa.Array:
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.array([None if v is None else v.decode() for v in values], t)
    return pa.array(values, t)


def out_type(t: pa.DataType) -> pa.DataType:
    return pa.binary() if pa.types.is_binary(t) or pa.types.is_string(t) else pa.large_binary()


@pytest.mark.parametrize("t", TYPES, ids=str)
@pytest.mark.parametrize("key_len", [16, 32])
def test_random_mode_is_nonce_ciphertext_tag(t: pa.DataType, key_len: int) -> None:
    key = KEY[:key_len]
    sealed = encrypt_array(key, typed(VALUES, t))
    assert sealed.type == out_type(t) and len(sealed) == len(VALUES)
    for value, cell in zip(VALUES, sealed.to_pylist(), strict=True):
        if value is None:
            assert cell is None
            continue
        assert len(cell) == len(value) + 28
        assert AESGCMSIV(key).decrypt(cell[:12], cell[12:], None) == value
    opened = decrypt_array(key, sealed)
    assert opened.to_pylist() == VALUES and opened.type == out_type(t)


def test_random_nonces_differ() -> None:
    sealed = encrypt_array(KEY, pa.array([b"same"] * 5000)).to_pylist()
    assert len({cell[:12] for cell in sealed}) == 5000
    assert (
        len(
            {cell[:12] for cell in encrypt_array(KEY, pa.array([b"same"] * 5000)).to_pylist()}
            | {cell[:12] for cell in sealed}
        )
        == 10000
    )


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_deterministic_mode(t: pa.DataType) -> None:
    values = [b"a", b"b", b"a", None, b"", b"a" * 40]
    sealed = encrypt_array(KEY, typed(values, t), mode="deterministic", associated_data=b"ad")
    cells = sealed.to_pylist()
    assert cells[0] == cells[2] != cells[1] and cells[3] is None
    # ciphertext || tag under the all-zero nonce: AES-GCM-SIV's own deterministic use.
    assert cells[5] == AESGCMSIV(KEY).encrypt(bytes(12), b"a" * 40, b"ad")
    assert encrypt_array(KEY, typed(values, t), mode="deterministic", associated_data=b"ad").equals(sealed)
    other = encrypt_array(KEY, typed(values, t), mode="deterministic", associated_data=b"AD").to_pylist()
    assert other[0] != cells[0]
    opened = decrypt_array(KEY, sealed, mode="deterministic", associated_data=b"ad")
    assert opened.to_pylist() == values


def test_per_row_associated_data_binds_the_row() -> None:
    rows = pa.array([b"row-1", b"row-2", b"row-3"])
    values = pa.array([b"secret-a", b"secret-b", None])
    sealed = encrypt_array(KEY, values, associated_data=rows)
    cell = sealed[1].as_py()
    assert AESGCMSIV(KEY).decrypt(cell[:12], cell[12:], b"row-2") == b"secret-b"
    assert decrypt_array(KEY, sealed, associated_data=rows).equals(values)
    # The same ciphertext moved to another row fails there.
    moved = pa.array([sealed[1].as_py(), sealed[0].as_py(), None])
    with pytest.raises(InvalidTag) as raised:
        decrypt_array(KEY, moved, associated_data=rows)
    assert raised.value.index == 0
    # A null associated data is refused where the value is not null, allowed where it is.
    with pytest.raises(ValueError, match=r"associated_data\[1\] is null"):
        encrypt_array(KEY, values, associated_data=pa.array([b"r", None, b"r"]))
    encrypt_array(KEY, values, associated_data=pa.array([b"r", b"r", None]))


def test_chunked_arrays_keep_their_chunks_and_indices() -> None:
    chunks = pa.chunked_array([pa.array(["a", "b"]), pa.array([], pa.string()), pa.array(["c", None, "d"])])
    rows = pa.chunked_array([pa.array([b"1", b"2", b"3"]), pa.array([b"4", b"5"])])  # other boundaries
    sealed = encrypt_array(KEY, chunks, associated_data=rows)
    assert isinstance(sealed, pa.ChunkedArray) and [len(c) for c in sealed.chunks] == [2, 0, 3]
    opened = decrypt_array(KEY, sealed, associated_data=rows)
    assert opened.to_pylist() == [b"a", b"b", b"c", None, b"d"]
    tampered = pa.chunked_array([sealed.chunk(0), sealed.chunk(1), pa.array([None, None, flip(sealed[4])])])
    with pytest.raises(InvalidTag, match="value 4 failed") as raised:
        decrypt_array(KEY, tampered, associated_data=rows)
    assert raised.value.index == 4


def flip(cell: pa.Scalar, at: int = -1) -> bytes:
    b = bytearray(cell.as_py())
    b[at] ^= 1
    return bytes(b)


def test_sliced_arrays_and_empty_ones() -> None:
    base = pa.array([b"p", None, b"qq", b"rrr", None, b"s"])
    part = base.slice(1, 4)
    assert decrypt_array(KEY, encrypt_array(KEY, part)).equals(part.cast(pa.binary()))
    rows = pa.array([b"0", b"1", b"2", b"3", b"4", b"5"]).slice(2, 4)
    assert decrypt_array(KEY, encrypt_array(KEY, part, associated_data=rows), associated_data=rows).equals(
        part
    )
    for empty in [pa.array([], pa.binary()), pa.array([None, None], pa.string()), base.slice(6)]:
        assert decrypt_array(KEY, encrypt_array(KEY, empty)).to_pylist() == empty.to_pylist()
    assert len(encrypt_array(KEY, pa.chunked_array([], pa.binary()))) == 0


def test_on_error_raise_and_null() -> None:
    values = pa.array([b"v%d" % i for i in range(100)])
    sealed = encrypt_array(KEY, values).to_pylist()
    sealed[37] = flip(pa.scalar(sealed[37]), 5)  # a ciphertext byte
    sealed[90] = flip(pa.scalar(sealed[90]), 0)  # a nonce byte
    bad = pa.array(sealed)
    with pytest.raises(InvalidTag, match=r"value 37 failed authentication \(and 1 more\)") as raised:
        decrypt_array(KEY, bad)
    assert raised.value.index == 37 and isinstance(raised.value, gcmsiv.InvalidTag)
    opened, failed = decrypt_array(KEY, bad, on_error="null")
    assert failed == 2 and opened.null_count == 2
    expected = values.to_pylist()
    expected[37] = expected[90] = None
    assert opened.to_pylist() == expected
    # The bytes under a nulled value are zeros, never unauthenticated plaintext.
    offsets = memoryview(opened.buffers()[1]).cast("i")
    start, end = offsets[37], offsets[38]
    assert end - start == 3 and opened.buffers()[2].to_pybytes()[start:end] == bytes(3)
    # A wrong key fails every value, a wrong mode is not even the right length.
    assert decrypt_array(bytes(32), bad, on_error="null")[1] == 100
    with pytest.raises(ValueError, match="on_error"):
        decrypt_array(KEY, bad, on_error="ignore")  # type: ignore[call-overload]


def test_many_values_on_every_core_match_one_thread() -> None:
    values = pa.array([os.urandom(i % 300) if i % 17 else None for i in range(60_000)])
    rows = pa.array([b"%d" % i for i in range(60_000)])
    one = encrypt_array(KEY, values, mode="deterministic", associated_data=rows, threads=1)
    for threads in (None, 2, 7):
        many = encrypt_array(KEY, values, mode="deterministic", associated_data=rows, threads=threads)
        assert many.equals(one)
    sealed = encrypt_array(KEY, values, associated_data=rows)
    assert decrypt_array(KEY, sealed, associated_data=rows, threads=3).equals(values)
    with pytest.raises(ValueError, match="threads"):
        encrypt_array(KEY, values, threads=0)


def test_large_calls_release_the_gil() -> None:
    values = pa.array([bytes(32)] * 400_000)
    sealed = encrypt_array(KEY, values)
    assert releases_gil(lambda: encrypt_array(KEY, values, threads=1), longest=0.85)
    assert releases_gil(lambda: decrypt_array(KEY, sealed, threads=1), longest=0.85)


def test_derive_column_key_is_hkdf_sha256() -> None:
    for master in (KEY, KEY[:16]):
        for name in ("ssn", "e-mail", "\u00e9"):
            expected = HKDF(
                algorithm=hashes.SHA256(),
                length=len(master),
                salt=None,
                info=b"gcmsiv arrow column key v1\x00" + name.encode(),
            ).derive(master)
            assert derive_column_key(master, name) == expected == derive_column_key(master, name.encode())
    assert derive_column_key(KEY, "a") != derive_column_key(KEY, "b")
    # Equal values in two columns under their own keys do not match, even deterministic.
    col = pa.array([b"same"])
    a = encrypt_array(derive_column_key(KEY, "a"), col, mode="deterministic")
    b = encrypt_array(derive_column_key(KEY, "b"), col, mode="deterministic")
    assert not a.equals(b)
    with pytest.raises(ValueError, match="16 or 32 bytes"):
        derive_column_key(bytes(24), "a")
    with pytest.raises(TypeError, match="str or bytes"):
        derive_column_key(KEY, 3)  # type: ignore[arg-type]


def test_bad_inputs_are_refused_before_any_work() -> None:
    values = pa.array([b"a", b"b"])
    with pytest.raises(ValueError, match="128 or 256 bits"):
        encrypt_array(bytes(24), values)
    with pytest.raises(TypeError, match="binary or string array"):
        encrypt_array(KEY, pa.array([1, 2]))
    with pytest.raises(TypeError, match="pyarrow Array"):
        encrypt_array(KEY, [b"a", b"b"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="associated_data has 3 values where the array has 2"):
        encrypt_array(KEY, values, associated_data=pa.array([b"1", b"2", b"3"]))
    with pytest.raises(TypeError, match="binary or string array"):
        encrypt_array(KEY, values, associated_data=pa.array([1, 2]))
    with pytest.raises(ValueError, match="mode"):
        encrypt_array(KEY, values, mode="ecb")  # type: ignore[arg-type]
    short = pa.array([encrypt_array(KEY, values)[0].as_py(), b"x" * 27])
    with pytest.raises(ValueError, match=r"value 1 is 27 bytes, shorter than 28 \(nonce \+ tag\)"):
        decrypt_array(KEY, short)
    with pytest.raises(ValueError, match=r"value 0 is 15 bytes, shorter than 16 \(a tag\)"):
        decrypt_array(KEY, pa.array([b"y" * 15]), mode="deterministic")


def test_invalid_arrays_are_refused() -> None:
    # Offsets that go back: pyarrow's own (cheap) validation does not look past the last.
    offsets = pa.array([0, 5, 2], pa.int32()).buffers()[1]
    broken = pa.Array.from_buffers(pa.binary(), 2, [None, offsets, pa.py_buffer(b"abcdef")])
    with pytest.raises(ValueError, match="point past its data"):
        encrypt_array(KEY, broken)


@pytest.fixture
def huge() -> Iterator[Callable[[int], pa.Buffer]]:
    """Makes buffers of `length` zero bytes that take no memory: address space mapped with
    MAP_NORESERVE and never touched (the calls refuse before reading a byte). Unmapped after
    the test."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    maps: list[tuple[int, int]] = []

    def make(length: int) -> pa.Buffer:
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000  # MAP_NORESERVE on Linux
        address = libc.mmap(None, length, mmap.PROT_READ, flags, -1, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            pytest.skip(f"cannot reserve {length} bytes of address space: errno {ctypes.get_errno()}")
        maps.append((address, length))
        return pa.foreign_buffer(address, length)

    yield make
    gc.collect()
    for address, length in maps:
        libc.munmap(address, length)


def test_values_over_rfc_8452_limits_are_refused(huge: Callable[[int], pa.Buffer]) -> None:
    n = (1 << 36) + 1
    offsets = pa.array([0, 1, 1 + n], pa.int64()).buffers()[1]
    data = huge(1 + n)
    over = pa.Array.from_buffers(pa.large_binary(), 2, [None, offsets, data])
    with pytest.raises(OverflowError, match=r"value 1 is 68719476737 bytes, over RFC 8452's limit"):
        encrypt_array(KEY, over)
    with pytest.raises(OverflowError, match="associated data of value 1"):
        encrypt_array(KEY, pa.array([b"a", b"b"]), associated_data=over)
    # A result over a 32-bit array's 2 GiB: refused, with the way out.
    n = (1 << 31) - 20
    big = pa.Array.from_buffers(pa.binary(), 1, [None, pa.array([0, n], pa.int32()).buffers()[1], huge(n)])
    with pytest.raises(ValueError, match="large_binary"):
        encrypt_array(KEY, big)  # 28 bytes more: over 2^31 - 1


def test_pandas_and_polars_through_arrow() -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    frame = pd.DataFrame(
        {"id": [1, 2, 3], "ssn": pd.Series(["123", None, "456"], dtype=pd.ArrowDtype(pa.string()))}
    )
    sealed = encrypt_array(KEY, pa.array(frame["ssn"]))
    frame["ssn"] = pd.Series(sealed, dtype=pd.ArrowDtype(sealed.type))
    back = decrypt_array(KEY, pa.array(frame["ssn"])).cast(pa.string())
    assert back.to_pylist() == ["123", None, "456"]

    df = pl.DataFrame({"id": [1, 2, 3], "email": ["a@x", "b@x", None]})
    sealed = encrypt_array(KEY, df["email"], mode="deterministic")  # string_view, read in place
    df = df.with_columns(email=pl.Series(sealed))
    assert df["email"].dtype == pl.Binary and df["email"].null_count() == 1
    opened = decrypt_array(KEY, df["email"], mode="deterministic")
    assert pl.Series(opened.cast(pa.large_string())).to_list() == ["a@x", "b@x", None]
