"""Encrypted files as file objects: ``gcmsiv.open``, in the manner of ``gzip.open``.

The file format is docs/FORMAT.md of the gcmsiv repository, the one the ``gcmsiv`` tool
writes and reads: a key-committing header, then the plaintext in chunks of a fixed size,
each sealed with AES-GCM-SIV together with its position and a final-chunk flag, so that
truncation, reordering and appended data are detected. All of the format's logic is the
Rust crate ``gcmsiv-stream``'s (``_SealStream``, ``_OpenStream``, ``_RandomAccess``); this
module only moves bytes between them and Python file objects.
"""

from __future__ import annotations

import builtins
import io
import os
from collections.abc import Iterable
from typing import Any

# The compiled module's private classes have no stubs: src/stream.rs documents them.
from gcmsiv._gcmsiv import (  # type: ignore[import-not-found]
    _OpenStream,
    _RandomAccess,
    _SealStream,
    _stream_header_needed,
    _StreamSecret,
    generate_identity,
    identity_recipient,
)

__all__ = ["GcmsivFile", "generate_identity", "identity_recipient", "open"]

#: File bytes a streaming reader asks its source for at once: about one batch of chunks,
#: which the reader then opens on all cores.
_READ_SIZE = 2 << 20
#: Most plaintext a random-access read opens at once, whatever the caller asks.
_RANDOM_READ_MAX = 8 << 20
#: Small writes are gathered up to this many bytes before they go to the cipher.
_WRITE_BUFFER = 256 << 10
#: The chunk size when ``chunk_size`` is not given: 64 KiB, the gcmsiv tool's default.
_DEFAULT_CHUNK_SIZE = 64 << 10
#: Argon2id cost when none is given: RFC 9106's second recommended option, the gcmsiv
#: tool's default (64 MiB, 3 passes, 4 lanes).
_DEFAULT_ARGON2 = (64 << 10, 3, 4)

_MODES = {"r": "rb", "rb": "rb", "w": "wb", "wb": "wb", "x": "xb", "xb": "xb"}


def open(  # noqa: A001 - the name the standard library's compressors use
    file: str | bytes | os.PathLike[str] | os.PathLike[bytes] | Any,
    mode: str = "rb",
    *,
    key: Any = None,
    key_file: str | bytes | os.PathLike[str] | os.PathLike[bytes] | None = None,
    passphrase: str | bytes | None = None,
    recipients: str | Iterable[str] | None = None,
    identities: str | bytes | None = None,
    allow_mixed_recipients: bool = False,
    chunk_size: int | None = None,
    algorithm: str = "aes256",
    argon2_memory_kib: int | None = None,
    argon2_iterations: int | None = None,
    argon2_lanes: int | None = None,
) -> GcmsivFile:
    """Opens a gcmsiv encrypted file for reading (``"rb"``) or writing (``"wb"``, or
    ``"xb"`` to refuse an existing path), and returns a :class:`GcmsivFile`.

    ``file`` is a path (``str``, ``bytes`` or ``os.PathLike``) or a binary file object.
    Give exactly one secret: ``key``, the 32 bytes a gcmsiv key file holds (any buffer);
    ``key_file``, the path of a key file (``gcmsiv keygen``); ``passphrase`` (``str``,
    encoded as UTF-8, or ``bytes``), stretched with Argon2id; or, for files to public
    keys (format version 2), ``recipients`` to write (recipient strings, ``gcmsiv1...``
    or ``gcmsivpq1...``: a list, or a recipients file's text) and ``identities`` to read
    (an identity file's text, ``GCMSIV-SECRET-KEY-...`` lines; a writer given identities
    writes to their recipients). X25519 and hybrid recipients together are refused
    unless ``allow_mixed_recipients=True``: such a file is only as safe as X25519
    against a quantum computer. :func:`gcmsiv.generate_identity` makes identities.

    For writing only: ``chunk_size``, plaintext bytes per chunk, a power of two from 1 KiB
    to 1 MiB (default 64 KiB); ``algorithm``, ``"aes256"`` (default) or ``"aes128"``; and
    with a passphrase, the Argon2id cost recorded in the file: ``argon2_memory_kib``
    (default 65536, at most 1048576), ``argon2_iterations`` (default 3, at most 16) and
    ``argon2_lanes`` (default 4, at most 16), which every reader of the file pays too.

    Raises ``ValueError`` or ``TypeError`` for bad arguments, ``OSError`` if the path or
    key file cannot be opened. Reading raises :class:`gcmsiv.InvalidTag` when a chunk or
    the secret does not authenticate, ``ValueError`` when the file is malformed (not a
    gcmsiv file, truncated, trailing data).
    """
    return GcmsivFile(
        file,
        mode,
        key=key,
        key_file=key_file,
        passphrase=passphrase,
        recipients=recipients,
        identities=identities,
        allow_mixed_recipients=allow_mixed_recipients,
        chunk_size=chunk_size,
        algorithm=algorithm,
        argon2_memory_kib=argon2_memory_kib,
        argon2_iterations=argon2_iterations,
        argon2_lanes=argon2_lanes,
    )


class GcmsivFile(io.BufferedIOBase):
    """A gcmsiv encrypted file, read or written as plaintext; made by :func:`gcmsiv.open`
    (which takes the same arguments).

    **Reading** releases a chunk's plaintext only once that chunk has authenticated, in
    file order. Reading from the start streams (a pipe works too); the first ``seek``
    instead checks the header and authenticates the final chunk, which fixes the length,
    and from then on each read reads and authenticates only the chunks it covers. A seek
    past the end is allowed and reads there return ``b""``. With a passphrase the first
    seek runs Argon2id again. Errors come at the read that meets them, after the
    plaintext before them: a consumer that acts on plaintext before the end must be ready
    to undo it; only reaching the end (``read()`` returning ``b""``) says the file was
    whole.

    **Writing**: ``close()`` (or leaving a ``with`` block normally) seals the final chunk,
    the one that marks the file complete. If the ``with`` block is left by an exception,
    if a write failed, or if the object is garbage-collected unclosed, the file is left
    without its final chunk: every reader reports it truncated, so it never reads as a
    complete file. ``flush()`` passes on the chunks already sealed; the plaintext of an
    unfinished chunk stays here until the chunk fills or the file is closed.

    Not safe for use by several threads at once (as ``gzip.GzipFile``); the GIL is released
    while chunks are sealed or opened, on all cores.
    """

    def __init__(
        self,
        file: Any,
        mode: str = "rb",
        *,
        key: Any = None,
        key_file: Any = None,
        passphrase: str | bytes | None = None,
        recipients: str | Iterable[str] | None = None,
        identities: str | bytes | None = None,
        allow_mixed_recipients: bool = False,
        chunk_size: int | None = None,
        algorithm: str = "aes256",
        argon2_memory_kib: int | None = None,
        argon2_iterations: int | None = None,
        argon2_lanes: int | None = None,
    ) -> None:
        if not isinstance(mode, str) or mode not in _MODES:
            raise ValueError(f"invalid mode {mode!r}: gcmsiv files open as 'rb' or 'wb' (or 'xb')")
        mode = _MODES[mode]
        writing = mode != "rb"
        argon2 = (argon2_memory_kib, argon2_iterations, argon2_lanes)
        if not writing:
            if chunk_size is not None:
                raise ValueError("chunk_size is for writing: a reader takes it from the file")
            if algorithm != "aes256":
                raise ValueError("algorithm is for writing: a reader takes it from the file")
            if argon2 != (None, None, None):
                raise ValueError("the Argon2id cost is for writing: a reader takes it from the file")
        secret = _secret(key, key_file, passphrase, recipients, identities, allow_mixed_recipients)
        if writing:
            if passphrase is None and argon2 != (None, None, None):
                raise ValueError("the Argon2id cost applies only to a passphrase")
            cost = None
            if passphrase is not None:
                cost = tuple(
                    d if v is None else _int(v, n)
                    for v, d, n in zip(argon2, _DEFAULT_ARGON2, _ARGON2_NAMES, strict=True)
                )
            size = _DEFAULT_CHUNK_SIZE if chunk_size is None else _int(chunk_size, "chunk_size")
            if not isinstance(algorithm, str):
                raise TypeError("algorithm must be 'aes256' or 'aes128'")
            # Checks every argument (and runs Argon2id) before a path is created.
            seal = _SealStream(secret, size, algorithm, cost)

        self._fileobj, self._owns = _file_object(file, mode)
        try:
            name = file if isinstance(file, (str, bytes, os.PathLike)) else getattr(file, "name", None)
            if name is not None:
                self.name = os.fspath(name) if isinstance(name, os.PathLike) else name
            self.mode = mode
            self._writing = writing
            if writing:
                self._seal: _SealStream | None = seal
                self._pending = bytearray()
                self._offset = 0
                self._failed = False
                self._write_all = _writer(self._fileobj)
            else:
                self._raw = _Reader(self._fileobj, secret)
                self._buffer = io.BufferedReader(self._raw)
        except BaseException:
            if self._owns:
                self._fileobj.close()
            raise

    def __repr__(self) -> str:
        name = getattr(self, "name", None)
        return f"<gcmsiv.GcmsivFile {name!r} mode={getattr(self, 'mode', '?')!r}>"

    # --- state ---------------------------------------------------------------------------

    def readable(self) -> bool:
        self._check_open()
        return not self._writing

    def writable(self) -> bool:
        self._check_open()
        return self._writing

    def seekable(self) -> bool:
        self._check_open()
        return not self._writing and self._raw.seekable()

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file.")

    def _check_reading(self) -> None:
        self._check_open()
        if self._writing:
            raise io.UnsupportedOperation("not readable: the file was opened for writing")

    def _check_writing(self) -> None:
        self._check_open()
        if not self._writing:
            raise io.UnsupportedOperation("not writable: the file was opened for reading")
        if self._failed:
            raise ValueError("an earlier write failed: the file is incomplete and cannot be finished")

    # --- reading -------------------------------------------------------------------------

    def read(self, size: int | None = -1) -> bytes:
        self._check_reading()
        return self._buffer.read(size)

    def read1(self, size: int = -1) -> bytes:
        self._check_reading()
        return self._buffer.read1(size)

    def readinto(self, b: Any) -> int:
        self._check_reading()
        return self._buffer.readinto(b)

    def readinto1(self, b: Any) -> int:
        self._check_reading()
        return self._buffer.readinto1(b)

    def peek(self, size: int = 0) -> bytes:
        self._check_reading()
        return self._buffer.peek(size)

    def readline(self, size: int | None = -1) -> bytes:
        self._check_reading()
        return self._buffer.readline(size)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Moves to plaintext byte ``offset`` from the start (``SEEK_SET``), the current
        position (``SEEK_CUR``) or the end (``SEEK_END``). ``io.UnsupportedOperation`` when
        writing or when the source is not seekable (a pipe); ``ValueError`` for a negative
        position."""
        self._check_reading()
        return self._buffer.seek(offset, whence)

    def tell(self) -> int:
        """The plaintext position: of the next byte read, or the bytes written so far."""
        self._check_open()
        if self._writing:
            return self._offset
        return self._buffer.tell()

    # --- writing -------------------------------------------------------------------------

    def write(self, data: Any) -> int:
        """Encrypts ``data`` (any buffer); returns its length in bytes."""
        self._check_writing()
        if isinstance(data, (bytes, bytearray)):
            length = len(data)
        else:
            data = memoryview(data).cast("B")
            length = data.nbytes
        if len(self._pending) + length < _WRITE_BUFFER:
            self._pending += data
        else:
            self._push(bytes(self._pending) + data if length < _WRITE_BUFFER else None, data)
        self._offset += length
        return length

    def _push(self, joined: bytes | None, data: Any) -> None:
        """Sends the gathered writes and ``data`` (or ``joined``, the two together) to the
        cipher, and the file bytes that completes to the file."""
        assert self._seal is not None
        try:
            if joined is not None:
                self._pending.clear()
                self._seal.push(joined, self._write_all)
            else:
                if self._pending:
                    self._seal.push(bytes(self._pending), self._write_all)
                    self._pending.clear()
                self._seal.push(data, self._write_all)
        except BaseException:
            self._failed = True
            raise

    def flush(self) -> None:
        self._check_open()
        if self._writing and hasattr(self._fileobj, "flush"):
            self._fileobj.flush()

    def close(self) -> None:
        """Closes the file; when writing, first seals the final chunk (see the class)."""
        if self.closed:
            return
        try:
            if self._writing and not self._failed and self._seal is not None:
                try:
                    if self._pending:
                        self._seal.push(bytes(self._pending), self._write_all)
                        self._pending.clear()
                    self._seal.finish(self._write_all)
                except BaseException:
                    self._failed = True
                    raise
                if hasattr(self._fileobj, "flush"):
                    self._fileobj.flush()
        finally:
            self._release()

    def _abandon(self) -> None:
        """Closes without sealing the final chunk: the file stays truncated."""
        if self.closed:
            return
        self._failed = True
        try:
            if self._writing and hasattr(self._fileobj, "flush") and not self._fileobj.closed:
                self._fileobj.flush()
        finally:
            self._release()

    def _release(self) -> None:
        fileobj, self._fileobj = self._fileobj, None
        self._seal = None
        buffer = getattr(self, "_buffer", None)
        try:
            if buffer is not None:
                buffer.close()  # and the reader, with the secret
        finally:
            try:
                if self._owns and fileobj is not None:
                    fileobj.close()
            finally:
                super().close()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None and getattr(self, "_writing", False):
            self._abandon()
        else:
            self.close()

    def __del__(self) -> None:
        # io.IOBase would call close(), sealing a file whose writer was dropped midway.
        if not hasattr(self, "_fileobj") or self.closed:
            return
        try:
            self._abandon()
        except Exception:
            pass

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a gcmsiv file has no descriptor of its plaintext")

    def detach(self) -> Any:
        raise io.UnsupportedOperation("a gcmsiv file cannot be detached")


class _Reader(io.RawIOBase):
    """Authenticated plaintext of a gcmsiv file, for ``io.BufferedReader``.

    Streams with ``_OpenStream`` until the first seek that moves; then reads with
    ``_RandomAccess``, the chunks a read covers and no more. ``_pending`` is plaintext
    ready to return, which starts at ``_pos``; in random access, ``_cache`` holds the last
    chunks opened, from plaintext offset ``_cache_at``. A failure is raised once the
    plaintext before it has been returned.
    """

    def __init__(self, fileobj: Any, secret: _StreamSecret) -> None:
        self._fp = fileobj
        self._secret: _StreamSecret | None = secret
        self._seekable = _seekable(fileobj)
        self._start = fileobj.tell() if self._seekable else 0
        self._read_some = getattr(fileobj, "read1", fileobj.read)
        self._stream: _OpenStream | None = _OpenStream(secret)
        self._random: _RandomAccess | None = None
        self._length = 0
        self._pos = 0
        self._pending = memoryview(b"")
        self._cache = memoryview(b"")
        self._cache_at = 0
        self._error: BaseException | None = None
        self._end = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._seekable

    def tell(self) -> int:
        return self._pos

    def readinto(self, b: Any) -> int:
        with memoryview(b) as view, view.cast("B") as out:
            if not out:
                return 0
            while not self._pending:
                if self._error is not None:
                    raise _again(self._error)
                if self._random is not None:
                    if self._pos >= self._length:
                        return 0
                    self._read_random(len(out))
                elif self._end:
                    return 0
                else:
                    self._read_stream()
            n = min(len(out), len(self._pending))
            out[:n] = self._pending[:n]
            self._pending = self._pending[n:]
            self._pos += n
            return n

    def readall(self) -> bytes:
        parts: list[bytes] = []
        while True:
            if not self._pending:
                # Fills `_pending`, or returns b"" at the end (or raises).
                head = self.read(_READ_SIZE)
                if not head:
                    return b"".join(parts)
                parts.append(head)
            parts.append(bytes(self._pending))
            self._pos += len(self._pending)
            self._pending = memoryview(b"")

    def _read_stream(self) -> None:
        assert self._stream is not None
        data = self._read_some(_READ_SIZE)
        if data is None:
            raise BlockingIOError("the source has no bytes ready; gcmsiv reads block")
        if not data:
            self._end = True
            self._error = self._stream.finish()
            return
        plaintext, self._error = self._stream.push(data)
        self._pending = memoryview(plaintext)

    def _read_random(self, want: int) -> None:
        assert self._random is not None
        span = self._random.span(self._pos, min(max(want, 1), _RANDOM_READ_MAX))
        assert span is not None, "internal error: a read inside the plaintext has a span"
        first_chunk, file_offset, file_len, skip = span
        stored = self._read_at(file_offset, file_len)
        plaintext, self._error = self._random.open(first_chunk, stored)
        self._cache = memoryview(plaintext)
        self._cache_at = self._pos - skip
        self._pending = self._cache[skip:]

    def _read_at(self, offset: int, length: int) -> bytes:
        self._fp.seek(self._start + offset)
        parts: list[bytes] = []
        while length > 0:
            data = self._fp.read(length)
            if not data:
                break
            parts.append(data)
            length -= len(data)
        return b"".join(parts)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if not self._seekable:
            raise io.UnsupportedOperation("the source is not seekable (a pipe?): read it in order")
        offset = offset.__index__()
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._pos + offset
        elif whence == io.SEEK_END:
            self._start_random()
            target = self._length + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if target < 0:
            raise ValueError(f"negative seek position {target}")
        if target == self._pos and self._random is None:
            return target
        self._start_random()
        # A kept failure belongs to the chunk it was met at; a read elsewhere may succeed.
        self._error = None
        if self._cache_at <= target < self._cache_at + len(self._cache):
            self._pending = self._cache[target - self._cache_at :]
        else:
            self._pending = memoryview(b"")
        self._pos = target
        return target

    def _start_random(self) -> None:
        """Checks the header and the final chunk, after which reads may go anywhere."""
        if self._random is not None:
            return
        # The stream's place in the source is lost from here: a failure is final.
        self._stream = None
        self._pending = memoryview(b"")
        try:
            self._fp.seek(self._start)
            # The header's length from its first bytes: 86 for a file to a key or
            # passphrase, longer to recipients.
            header = self._fp.read(7) or b""
            while len(header) >= 7:
                needed = _stream_header_needed(header)
                if needed <= len(header):
                    break
                more = self._fp.read(needed - len(header)) or b""
                if not more:
                    break
                header += more
            file_len = self._fp.seek(0, io.SEEK_END) - self._start
            random = _RandomAccess(header, file_len, self._secret)
            offset, length = random.final_chunk()
            self._length = random.verify_final(self._read_at(offset, length))
        except BaseException as error:
            self._error = error
            raise
        self._random = random

    def close(self) -> None:
        self._pending = self._cache = memoryview(b"")
        # The secret (zeroized by its Rust owner when dropped) goes with the file.
        self._stream = self._random = self._secret = None
        super().close()


def _again(error: BaseException) -> BaseException:
    """A fresh exception like ``error``, raised by each read after a failure."""
    try:
        again = type(error)(*error.args)
    except Exception:
        return error
    again.__cause__ = error.__cause__
    return again


_ARGON2_NAMES = ("argon2_memory_kib", "argon2_iterations", "argon2_lanes")


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    value = value.__index__()
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value


def _secret(
    key: Any,
    key_file: Any,
    passphrase: Any,
    recipients: Any = None,
    identities: Any = None,
    allow_mixed: Any = False,
) -> _StreamSecret:
    given = [
        name
        for name, v in (
            ("key", key),
            ("key_file", key_file),
            ("passphrase", passphrase),
            ("recipients", recipients),
            ("identities", identities),
        )
        if v is not None
    ]
    if len(given) != 1:
        raise TypeError(
            "give exactly one of key, key_file, passphrase, recipients and identities"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if not isinstance(allow_mixed, bool):
        raise TypeError("allow_mixed_recipients must be a bool")
    if allow_mixed and recipients is None:
        raise ValueError("allow_mixed_recipients applies only to recipients")
    if recipients is not None:
        if not isinstance(recipients, str):
            recipients = list(recipients)
            if not all(isinstance(r, str) for r in recipients):
                raise TypeError("recipients must be strings")
            recipients = "\n".join(recipients)
        return _StreamSecret.from_recipients(recipients, allow_mixed)
    if identities is not None:
        if isinstance(identities, str):
            identities = identities.encode("utf-8")
        elif not isinstance(identities, (bytes, bytearray, memoryview)):
            raise TypeError(f"identities must be str or bytes, not {type(identities).__name__}")
        return _StreamSecret.from_identities(identities)
    if key is not None:
        if isinstance(key, str):
            raise TypeError("key must be 32 bytes, not str (a key file's text goes through key_file)")
        return _StreamSecret.from_key(key)
    if key_file is not None:
        path = os.fspath(key_file)
        return _StreamSecret.from_key_file(os.fsdecode(path) if isinstance(path, bytes) else path)
    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    elif not isinstance(passphrase, (bytes, bytearray, memoryview)):
        raise TypeError(f"passphrase must be str or bytes, not {type(passphrase).__name__}")
    return _StreamSecret.from_passphrase(passphrase)


def _file_object(file: Any, mode: str) -> tuple[Any, bool]:
    """The binary file object to use, and whether this module opened it."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return builtins.open(file, mode), True
    if isinstance(file, io.TextIOBase):
        raise TypeError("file must be a binary file object (opened with 'b'), not a text file")
    needed = "read" if mode == "rb" else "write"
    if not hasattr(file, needed):
        raise TypeError(f"file must be a path or a binary file object with a {needed}() method")
    return file, False


def _seekable(fileobj: Any) -> bool:
    try:
        return bool(fileobj.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _writer(fileobj: Any) -> Any:
    """``write_all(data)`` for ``fileobj``: raw files may write part of what they are given."""
    write = fileobj.write

    def write_all(data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = write(view)
            if n is None:
                raise BlockingIOError("the file took no bytes; gcmsiv writes block")
            view = view[n:]

    return write_all
