"""Column encryption for Apache Arrow: AES-GCM-SIV over whole arrays, value by value.

``encrypt_array`` and ``decrypt_array`` take a ``pyarrow`` Binary, LargeBinary, String,
LargeString, BinaryView or StringView array (or a chunked array of one; Polars and
pandas through the Arrow PyCapsule interface) and return a binary array of the same
length and chunking: nulls stay null, every other value is encrypted on its own. The
values' buffers go to the native batch kernel as they are (no Python object or copy per
value), the GIL is released, and a large array runs on every core.

Stored forms (docs/ARROW.md has the details, the leakage and the per-key limits):

- ``mode="random"`` (the default): ``nonce || ciphertext || tag``, a fresh 96-bit nonce
  per value; 28 bytes more than the value.
- ``mode="deterministic"``: ``ciphertext || tag`` under a fixed all-zero nonce; 16 bytes
  more. Equal (value, associated data) pairs give equal ciphertexts, so the column can be
  joined, grouped and deduplicated while encrypted; that equality (and each value's length)
  is what it reveals. Use one key per column (``derive_column_key``).

Needs ``pyarrow`` (``pip install gcmsiv[arrow]``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Literal, TypeAlias, overload

try:
    import pyarrow as pa  # type: ignore[import-untyped]
except ImportError as _missing:  # pragma: no cover - exercised only without pyarrow
    raise ImportError("gcmsiv.arrow needs pyarrow: pip install 'gcmsiv[arrow]'") from _missing

from gcmsiv import InvalidTag

# The compiled module's column calls: private, so the package's stubs do not list them.
_native = importlib.import_module("gcmsiv._gcmsiv")

__all__ = ["InvalidTag", "decrypt_array", "derive_column_key", "encrypt_array"]

Buffer: TypeAlias = bytes | bytearray | memoryview
"""A key or one associated data for all values: any contiguous buffer of bytes."""

ArrayLike: TypeAlias = pa.Array | pa.ChunkedArray
"""What the calls take: a pyarrow array or chunked array, or any object that exports one
through the Arrow PyCapsule interface (``__arrow_c_array__``, ``__arrow_c_stream__``: a
Polars Series, a pandas Series backed by Arrow)."""


def _as_arrow(obj: object, what: str) -> pa.Array | pa.ChunkedArray:
    if isinstance(obj, pa.Array | pa.ChunkedArray):
        return obj
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.chunked_array(obj)
    if hasattr(obj, "__arrow_c_array__"):
        return pa.array(obj)
    raise TypeError(f"{what} must be a pyarrow Array or ChunkedArray, not {type(obj).__name__}")


def _layout(array: pa.Array | pa.ChunkedArray, what: str) -> int:
    """How ``array`` holds its values: 0 (32-bit offsets), 1 (64-bit offsets) or 2 (views);
    TypeError for a type without variable-length bytes."""
    t = array.type
    if pa.types.is_binary(t) or pa.types.is_string(t):
        return 0
    if pa.types.is_large_binary(t) or pa.types.is_large_string(t):
        return 1
    if pa.types.is_binary_view(t) or pa.types.is_string_view(t):
        return 2
    raise TypeError(
        f"{what} must be a binary or string array (binary, large_binary, string, large_string, "
        f"binary_view, string_view), not {t}"
    )


def _chunk_args(array: pa.Array, layout: int) -> tuple[object, ...]:
    validity, index, *data = array.buffers()
    if array.null_count == 0:
        validity = None
    return (layout, index, data, validity, array.offset, len(array))


def _out_type(layout: int) -> pa.DataType:
    """The result's type: binary for 32-bit offsets, large_binary otherwise."""
    return pa.binary() if layout == 0 else pa.large_binary()


def _chunk_calls(
    array: pa.Array | pa.ChunkedArray, layout: int, aad: _AssociatedData
) -> Iterator[tuple[pa.Array, tuple[object, ...]]]:
    """Each chunk, with the native call's arguments for it: its buffers, the associated
    data (one value, or the chunk's rows), and its first value's index."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    start = 0
    for chunk in chunks:
        length = len(chunk)
        yield chunk, (_chunk_args(chunk, layout), aad.scalar, aad.for_chunk(start, length), start)
        start += length


class _AssociatedData:
    """``associated_data`` as each chunk's call takes it: one buffer, or per-row values
    sliced to the chunk (no copy, unless its chunks straddle the array's)."""

    def __init__(self, associated_data: object, length: int) -> None:
        self.scalar: Buffer | None = None
        self.column: pa.Array | pa.ChunkedArray | None = None
        if associated_data is None:
            return
        if isinstance(associated_data, bytes | bytearray | memoryview):
            self.scalar = associated_data
            return
        if isinstance(associated_data, str):
            raise TypeError("associated_data must be bytes or an array, not str (encode it first)")
        column = _as_arrow(associated_data, "associated_data")
        self.layout = _layout(column, "associated_data")
        if len(column) != length:
            raise ValueError(f"associated_data has {len(column)} values where the array has {length}")
        self.column = column

    def for_chunk(self, start: int, length: int) -> tuple[object, ...] | None:
        if self.column is None:
            return None
        part = self.column.slice(start, length)
        if isinstance(part, pa.ChunkedArray):
            part = part.combine_chunks() if part.num_chunks != 1 else part.chunk(0)
        return _chunk_args(part, self.layout)


def _threads(threads: int | None) -> int:
    if threads is None:
        return 0
    if not isinstance(threads, int) or threads < 1:
        raise ValueError("threads must be a positive int, or None for every core")
    return threads


def _result(array: ArrayLike, chunks: list[pa.Array], layout: int) -> ArrayLike:
    if isinstance(array, pa.ChunkedArray):
        return pa.chunked_array(chunks, type=_out_type(layout))
    return chunks[0]


def _wrap(buffers: tuple[object, ...], length: int, layout: int) -> pa.Array:
    validity, offsets, data, nulls = buffers
    return pa.Array.from_buffers(_out_type(layout), length, [validity, offsets, data], null_count=nulls)


def _prepare(
    key: Buffer, array: object, mode: str, associated_data: object
) -> tuple[ArrayLike, int, _AssociatedData]:
    if mode not in ("random", "deterministic"):
        raise ValueError(f"mode must be 'random' or 'deterministic', not {mode!r}")
    if memoryview(key).nbytes not in (16, 32):
        raise ValueError("AES-GCM-SIV key must be 128 or 256 bits (16 or 32 bytes).")
    arrow = _as_arrow(array, "array")
    layout = _layout(arrow, "array")
    return arrow, layout, _AssociatedData(associated_data, len(arrow))


def derive_column_key(master_key: Buffer, column_name: str | bytes) -> bytes:
    """Derives the key of one column from a master key (16 or 32 bytes): HKDF-SHA256
    (RFC 5869) with the master key as input keying material, no salt, and the info string
    ``b"gcmsiv arrow column key v1" + b"\\x00" + column_name`` (a ``str`` name encoded as
    UTF-8). Returns a key of the master key's length.

    Equal values in two columns encrypted under their own column keys never have equal
    ciphertexts, in deterministic mode too, and one column's key reveals nothing about the
    master key or another column's key. ``ValueError`` for a master key of another length,
    ``TypeError`` for a name that is neither ``str`` nor bytes.
    """
    key: bytes = _native.derive_column_key(master_key, column_name)
    return key


def encrypt_array(
    key: Buffer,
    array: ArrayLike,
    *,
    mode: Literal["random", "deterministic"] = "random",
    associated_data: Buffer | ArrayLike | None = None,
    threads: int | None = None,
) -> ArrayLike:
    """Encrypts each value of ``array`` with AES-GCM-SIV under ``key`` (16 or 32 bytes).

    Returns a ``binary`` array (``large_binary`` for a large or view input) of the same length, or a
    chunked array of the same chunking; nulls stay null. ``associated_data`` is
    authenticated with each value: one bytes value for all, or an array of the same length
    with one per row (the row's key, so that a value cannot be moved to another row), which
    must not be null where the value is not. ``mode`` is ``"random"`` or
    ``"deterministic"`` (see the module's documentation). ``threads`` caps the threads a
    large array uses (default: every core).

    Every value is checked before any work: a non-binary array (``TypeError``), a wrong key
    length or an ``associated_data`` of another length (``ValueError``), a value or
    associated data over RFC 8452's 2^36 bytes (``OverflowError``); nothing is returned
    then.
    """
    array, layout, aad = _prepare(key, array, mode, associated_data)
    n_threads = _threads(threads)
    out = [
        _wrap(_native._arrow_seal(key, mode, *args, n_threads, pa.allocate_buffer), len(chunk), layout)
        for chunk, args in _chunk_calls(array, layout, aad)
    ]
    return _result(array, out, layout)


@overload
def decrypt_array(
    key: Buffer,
    array: ArrayLike,
    *,
    mode: Literal["random", "deterministic"] = ...,
    associated_data: Buffer | ArrayLike | None = ...,
    on_error: Literal["raise"] = ...,
    threads: int | None = ...,
) -> ArrayLike: ...
@overload
def decrypt_array(
    key: Buffer,
    array: ArrayLike,
    *,
    mode: Literal["random", "deterministic"] = ...,
    associated_data: Buffer | ArrayLike | None = ...,
    on_error: Literal["null"],
    threads: int | None = ...,
) -> tuple[ArrayLike, int]: ...
def decrypt_array(
    key: Buffer,
    array: ArrayLike,
    *,
    mode: Literal["random", "deterministic"] = "random",
    associated_data: Buffer | ArrayLike | None = None,
    on_error: Literal["raise", "null"] = "raise",
    threads: int | None = None,
) -> ArrayLike | tuple[ArrayLike, int]:
    """Checks and decrypts each value of ``array``, as ``encrypt_array`` made it with the
    same ``key``, ``mode`` and ``associated_data``.

    Returns a ``binary`` array (``large_binary`` for a large or view input) of the plaintexts, nulls
    where the input has them (``.cast(pyarrow.string())`` turns text back into a string
    array, checking its UTF-8).

    A value that fails authentication (a wrong key, mode, associated data or row, or a
    changed byte): with ``on_error="raise"`` (the default) raises ``InvalidTag`` whose
    ``index`` attribute is the first such value's index, and returns nothing; with
    ``on_error="null"`` makes it null and returns ``(array, count of values nulled)``.
    Unauthenticated plaintext is never returned. A value shorter than the mode's overhead
    (28 bytes random, 16 deterministic) is not an encrypted value: ``ValueError``, before
    any work, as for ``encrypt_array``'s bad inputs.
    """
    if on_error not in ("raise", "null"):
        raise ValueError(f"on_error must be 'raise' or 'null', not {on_error!r}")
    array, layout, aad = _prepare(key, array, mode, associated_data)
    n_threads = _threads(threads)
    out, failed = [], 0
    for chunk, args in _chunk_calls(array, layout, aad):
        buffers, chunk_failed = _native._arrow_open(
            key, mode, *args, n_threads, pa.allocate_buffer, on_error == "null"
        )
        out.append(_wrap(buffers, len(chunk), layout))
        failed += chunk_failed
    result = _result(array, out, layout)
    return (result, failed) if on_error == "null" else result
