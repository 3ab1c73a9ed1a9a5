"""``gcmsiv.open``: every file-format vector through the streaming reader and through
seek-based random reads, round trips at every chunk boundary, every kind of damage, reads
at random offsets against ``io.BytesIO`` as the model, the writer's finishing rules, pipes,
``os.fork()``, and files the gcmsiv tool writes and reads."""

from __future__ import annotations

import io
import multiprocessing
import os
import pathlib
import random
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

import gcmsiv
import pytest
from conftest import REPO_ROOT, VECTORS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FORMAT = VECTORS / "format"
HEADER = 86
OVERHEAD = 20  # length word + tag, per chunk
# The cheapest Argon2id cost the format allows, for tests that need a passphrase.
CHEAP = {"argon2_memory_kib": 8, "argon2_iterations": 1, "argon2_lanes": 1}


# --- the vectors ------------------------------------------------------------------------


@dataclass
class Vector:
    file: str
    secret: dict
    plaintext: bytes | None  # good vectors
    error: str | None  # bad vectors: text the message contains
    released: bytes  # what a streaming reader releases before the error
    source: str  # how the file was made: a bad one from which good file


def _file_ref(ref: str) -> bytes:
    """``FILE``, ``FILE[..N]`` or ``nothing``."""
    if ref == "nothing":
        return b""
    name, _, cut = ref.partition("[..")
    data = (FORMAT / name).read_bytes()
    return data[: int(cut.rstrip("]"))] if cut else data


def load_manifest(name: str = "manifest.txt") -> list[Vector]:
    text = (FORMAT / name).read_text()
    blocks = [b for b in text.split("\n\n") if b.strip() and not b.lstrip().startswith("#")]
    vectors = []
    known = {
        "file",
        "key",
        "passphrase",
        "identity",
        "algorithm",
        "chunk_size",
        "plaintext",
        "error",
        "released",
        "source",
    }
    for block in blocks:
        fields = dict(line.split(" = ", 1) for line in block.strip().splitlines() if not line.startswith("#"))
        assert set(fields) <= known, f"unknown manifest field in {fields}"
        if fields["file"].endswith(".asc"):
            continue  # ASCII armor is the tool's and the Rust library's
        if "identity" in fields:
            names = [n.strip() for n in fields["identity"].split(",")]
            secret = {"identities": "\n".join((FORMAT / n).read_text() for n in names)}
        elif "key" in fields:
            secret = {"key_file": str(FORMAT / fields["key"])}
        else:
            secret = {"passphrase": fields["passphrase"]}
        plaintext = _file_ref(fields["plaintext"]) if "plaintext" in fields else None
        vectors.append(
            Vector(
                file=fields["file"],
                secret=secret,
                plaintext=plaintext,
                error=fields.get("error"),
                released=plaintext if plaintext is not None else _file_ref(fields["released"]),
                source=fields["source"],
            )
        )
    assert len(vectors) >= 13 and any(v.error for v in vectors), f"{name} was not read"
    return vectors


# Files to keys and passphrases, and to recipients (format version 2).
VECTORS_LIST = load_manifest() + load_manifest("recipients.txt")


def _expected_type(message: str) -> type[BaseException]:
    auth = (
        "wrong key",
        "wrong passphrase",
        "failed authentication",
        "no identity matched",
        "MAC does not verify",
    )
    return gcmsiv.InvalidTag if any(a in message for a in auth) else ValueError


def read_released(f, size: int = 100) -> tuple[bytes, BaseException | None]:
    """Everything ``f`` releases in reads of ``size``, and the exception that ended it."""
    got = bytearray()
    try:
        while piece := f.read1(size):
            got += piece
    except (gcmsiv.InvalidTag, ValueError) as error:
        return bytes(got), error
    return bytes(got), None


class NonSeekable(io.RawIOBase):
    """A pipe-like source: bytes in pieces of at most ``step``, no seeking."""

    def __init__(self, data: bytes, step: int = 777) -> None:
        self._data, self._at, self._step = data, 0, step

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), self._step, len(self._data) - self._at)
        b[:n] = self._data[self._at : self._at + n]
        self._at += n
        return n


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda v: f"{v.file}:{v.error or 'ok'}")
@pytest.mark.parametrize("source", ["path", "pipe"])
def test_vector_streaming(vector: Vector, source: str) -> None:
    path = FORMAT / vector.file
    file = path if source == "path" else io.BufferedReader(NonSeekable(path.read_bytes()))
    try:
        f = gcmsiv.open(file, "rb", **vector.secret)
    except (gcmsiv.InvalidTag, ValueError) as error:  # a key file is read at open
        got, failure = b"", error
    else:
        with f:
            got, failure = read_released(f)
    assert got == vector.released
    if vector.error is None:
        assert failure is None
    else:
        assert type(failure) is _expected_type(vector.error)
        assert vector.error in str(failure)


@pytest.mark.parametrize("vector", VECTORS_LIST, ids=lambda v: f"{v.file}:{v.error or 'ok'}")
def test_vector_random_access(vector: Vector) -> None:
    """Seek-based reads at offsets around every chunk boundary: each returns the right
    bytes, or raises the vector's error; never anything else."""
    path = FORMAT / vector.file
    # A damaged file may still give chunks that authenticate: those of the good file it
    # was made from (none for a file that is not gcmsiv at all).
    origin = vector.source.split()[0]
    truth = vector.plaintext or next(
        (v.plaintext for v in VECTORS_LIST if v.file == origin and v.plaintext), b""
    )
    offsets = sorted({0, 1, 5, 1023, 1024, 1025, 2047, 2048, 2049, 2559, 2560, 2561, 9999})
    released = 0
    for offset in offsets:
        for length in (1, 100, 1024, 5000):
            try:
                with gcmsiv.open(path, **vector.secret) as f:
                    # Random access from the first seek that moves: the end, then back.
                    f.seek(0, io.SEEK_END)
                    assert f.seek(offset) == offset
                    data = f.read(length)
            except (gcmsiv.InvalidTag, ValueError) as error:
                assert vector.error is not None, f"good vector failed: {error}"
                assert type(error) is _expected_type(vector.error)
                # A forged file fails at the chunk read, which need not be chunk 0.
                auth = "failed authentication"
                assert (auth if auth in vector.error else vector.error) in str(error)
                continue
            assert data == truth[offset : offset + length]
            released += len(data)
    if vector.plaintext:
        assert released > 0
    # Random access checks the final chunk first: a cut or extended file releases nothing.
    if vector.error and ("truncated" in vector.error or "trailing" in vector.error):
        assert released == 0


def test_vector_seek_end_and_lines() -> None:
    with gcmsiv.open(FORMAT / "chunks.key-aes256.gcmsiv", key_file=FORMAT / "key.txt") as f:
        plaintext = (FORMAT / "chunks.txt").read_bytes()
        assert f.seek(0, io.SEEK_END) == len(plaintext)
        assert f.read() == b""
        assert f.seek(-10, io.SEEK_END) == len(plaintext) - 10
        assert f.read() == plaintext[-10:]
        f.seek(0)
        assert list(f) == plaintext.splitlines(keepends=True)


# --- round trips --------------------------------------------------------------------------


def write_in_pieces(f, data: bytes, sizes=(1, 7, 1000, 4099, 300_000)) -> None:
    view, at, turn = memoryview(data), 0, 0
    while at < len(data):
        n = sizes[turn % len(sizes)]
        assert f.write(view[at : at + n]) == len(view[at : at + n])
        at, turn = at + n, turn + 1


SIZES = [0, 1, 1023, 1024, 1025, 2048, 2049, 10 * 1024 + 7, 700_000]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", ["aes256", "aes128"])
def test_round_trip_file_object(size: int, algorithm: str) -> None:
    key = os.urandom(32)
    data = random.Random(size).randbytes(size)
    sink = io.BytesIO()
    with gcmsiv.open(sink, "wb", key=key, chunk_size=1024, algorithm=algorithm) as f:
        write_in_pieces(f, data)
        assert f.tell() == size
    assert not sink.closed  # a file object given is left open
    chunks = max(1, -(-size // 1024))  # the final chunk may be full, or empty if all is
    assert len(sink.getvalue()) == HEADER + size + OVERHEAD * chunks
    sink.seek(0)
    with gcmsiv.open(sink, key=bytearray(key)) as f:
        assert f.read() == data
        assert f.read() == b""
    with gcmsiv.open(io.BufferedReader(NonSeekable(sink.getvalue(), 5000)), key=key) as f:
        assert f.read() == data


@pytest.mark.parametrize("kind", ["str", "bytes", "pathlib"])
def test_round_trip_paths(tmp_path: pathlib.Path, kind: str) -> None:
    key = os.urandom(32)
    data = os.urandom(100_000)
    target = tmp_path / "file.gcmsiv"
    path = {"str": str(target), "bytes": os.fsencode(target), "pathlib": target}[kind]
    with gcmsiv.open(path, "wb", key=key) as f:
        f.write(data)
    assert f.closed
    with gcmsiv.open(path, "rb", key=key) as f:
        assert f.name == path if kind != "pathlib" else str(target)
        assert f.read() == data
    with pytest.raises(FileExistsError):
        gcmsiv.open(path, "xb", key=key)


def test_round_trip_passphrase_and_key_file(tmp_path: pathlib.Path) -> None:
    data = os.urandom(5000)
    target = tmp_path / "p.gcmsiv"
    with gcmsiv.open(target, "wb", passphrase="pässword", chunk_size=1024, **CHEAP) as f:
        f.write(data)
    with gcmsiv.open(target, passphrase="pässword".encode()) as f:
        assert f.read() == data
        f.seek(3000)  # a second Argon2id run, at the file's recorded cost
        assert f.read(10) == data[3000:3010]
    with gcmsiv.open(target, passphrase="other") as f, pytest.raises(gcmsiv.InvalidTag, match="passphrase"):
        f.read()
    with gcmsiv.open(target, key=bytes(32)) as f, pytest.raises(ValueError, match="passphrase"):
        f.read()
    key = bytes(range(32))
    (tmp_path / "k.txt").write_text("# comment\ngcmsiv-key-v1:" + key.hex() + "\n")
    with gcmsiv.open(target, "wb", key_file=tmp_path / "k.txt") as f:
        f.write(data)
    with gcmsiv.open(target, key=key) as f:
        assert f.read() == data


# --- damage ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> tuple[bytes, bytes, bytes]:
    key = os.urandom(32)
    data = random.Random(7).randbytes(3 * 1024 + 100)
    sink = io.BytesIO()
    with gcmsiv.open(sink, "wb", key=key, chunk_size=1024) as f:
        f.write(data)
    return key, data, sink.getvalue()


def check_damaged(key: bytes, data: bytes, damaged: bytes) -> None:
    """Damaged files fail in both readers, releasing only a true prefix (streaming) or
    nothing wrong (random access)."""
    with gcmsiv.open(io.BytesIO(damaged), key=key) as f:
        got, failure = read_released(f, 500)
    assert failure is not None, "a damaged file read as whole"
    assert data.startswith(got)
    with pytest.raises((gcmsiv.InvalidTag, ValueError)):
        with gcmsiv.open(io.BytesIO(damaged), key=key) as f:
            f.seek(0, io.SEEK_END)
            f.seek(0)
            assert f.read(len(data) + 1) != data
            raise AssertionError("unreachable: a damaged file read back whole")


def test_every_truncation(sample) -> None:
    key, data, good = sample
    for cut in range(len(good)):
        check_damaged(key, data, good[:cut])


def test_bit_flips(sample) -> None:
    key, data, good = sample
    for at in range(0, len(good), 3):
        for bit in (0x01, 0x80):
            damaged = bytearray(good)
            damaged[at] ^= bit
            check_damaged(key, data, bytes(damaged))


def test_trailing_data_and_reordering(sample) -> None:
    key, data, good = sample
    for extra in (b"\x00", b"garbage\n", good[HEADER:]):
        check_damaged(key, data, good + extra)
    slot = 1024 + OVERHEAD
    chunks = [good[HEADER + i * slot : HEADER + (i + 1) * slot] for i in range(4)]
    for order in ([1, 0, 2, 3], [0, 2, 1, 3], [0, 1, 3, 2], [0, 1, 2], [0, 1, 2, 3, 3], [0, 0, 1, 2, 3]):
        check_damaged(key, data, good[:HEADER] + b"".join(chunks[i] for i in order))
    # A chunk of another file with the same key does not splice in.
    other = io.BytesIO()
    with gcmsiv.open(other, "wb", key=key, chunk_size=1024) as f:
        f.write(data)
    spliced = good[: HEADER + slot] + other.getvalue()[HEADER + slot :]
    check_damaged(key, data, spliced)


def test_errors_repeat_and_nothing_after(sample) -> None:
    key, data, good = sample
    damaged = bytearray(good)
    damaged[HEADER + 1024 + OVERHEAD + 50] ^= 1  # inside chunk 1
    with gcmsiv.open(io.BytesIO(bytes(damaged)), key=key) as f:
        assert f.read(1024) == data[:1024]
        with pytest.raises(gcmsiv.InvalidTag, match="chunk 1"):
            f.read(1)
        with pytest.raises(gcmsiv.InvalidTag, match="chunk 1"):
            f.read(1)
        # Random access still reads the chunks that authenticate, and not chunk 1.
        f.seek(2048)
        assert f.read(1024) == data[2048:3072]
        f.seek(1500)
        with pytest.raises(gcmsiv.InvalidTag):
            f.read(10)


# --- random reads, with io.BytesIO as the model ------------------------------------------------

_PLAINTEXT = random.Random(3).randbytes(5 * 1024 + 333)
_KEY = bytes(range(32))
_FILE = io.BytesIO()
with gcmsiv.open(_FILE, "wb", key=_KEY, chunk_size=1024) as _w:
    _w.write(_PLAINTEXT)
_FILE_BYTES = _FILE.getvalue()

operations = st.lists(
    st.one_of(
        st.tuples(st.just("seek"), st.integers(-7000, 7000), st.sampled_from([0, 1, 2])),
        st.tuples(st.just("read"), st.integers(-1, 3000)),
        st.tuples(st.just("read1"), st.integers(-1, 3000)),
        st.tuples(st.just("readinto"), st.integers(0, 3000)),
        st.tuples(st.just("readline"), st.integers(-1, 200)),
        st.tuples(st.just("peek"), st.integers(0, 10)),
        st.tuples(
            st.just("tell"),
        ),
    ),
    max_size=30,
)


def _apply(f, op):
    name = op[0]
    try:
        if name == "seek":
            return f.seek(op[1], op[2])
        if name == "readinto":
            buf = bytearray(op[1])
            n = f.readinto(buf)
            return bytes(buf[:n])
        if name == "tell":
            return f.tell()
        if name == "peek":
            return None if f.peek(op[1])[:1] == b"" else ("peek", f.tell())
        return getattr(f, name)(op[1])
    except ValueError as error:
        return type(error)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_random_operations_match_bytesio(ops) -> None:
    model = io.BufferedReader(io.BytesIO(_PLAINTEXT))
    with gcmsiv.open(io.BytesIO(_FILE_BYTES), key=_KEY) as f:
        for op in ops:
            if op[0] == "seek" and op[1] + (0, f.tell(), len(_PLAINTEXT))[op[2]] < 0:
                # BytesIO clamps a relative seek before the start to 0, regular files
                # raise OSError; ours raises ValueError, as BytesIO for SEEK_SET.
                with pytest.raises(ValueError, match="negative"):
                    f.seek(op[1], op[2])
                continue
            want, got = _apply(model, op), _apply(f, op)
            if op[0] == "read1":  # read1 may return fewer bytes: compare what came
                assert isinstance(got, bytes) and want[: len(got)] == got
                model.seek(f.tell())
                continue
            if op[0] == "peek":
                assert (got is None) == (want is None)
                continue
            assert got == want, op


def test_seeded_random_reads() -> None:
    rng = random.Random(11)
    with gcmsiv.open(io.BytesIO(_FILE_BYTES), key=_KEY) as f:
        for _ in range(2000):
            offset = rng.randrange(0, len(_PLAINTEXT) + 3000)
            length = rng.choice([0, 1, 2, rng.randrange(1, 5000)])
            assert f.seek(offset) == offset
            assert f.read(length) == _PLAINTEXT[offset : offset + length]
            assert f.tell() == min(offset + length, max(offset, len(_PLAINTEXT)))


def test_seek_rules() -> None:
    with gcmsiv.open(io.BytesIO(_FILE_BYTES), key=_KEY) as f:
        assert f.readable() and f.seekable() and not f.writable()
        assert f.seek(10**12) == 10**12
        assert f.read() == b"" and f.read(5) == b"" and f.read1(5) == b""
        assert f.tell() == 10**12
        with pytest.raises(ValueError):
            f.seek(-1)
        with pytest.raises(ValueError):
            f.seek(-(10**12) - 1, io.SEEK_CUR)
        with pytest.raises(ValueError):
            f.seek(0, 3)
        with pytest.raises(io.UnsupportedOperation):
            f.write(b"x")
        with pytest.raises(io.UnsupportedOperation):
            f.fileno()
    assert f.closed
    for call in (f.read, f.readline, f.tell, lambda: f.seek(0), lambda: f.readinto(bytearray(1)), f.__iter__):
        with pytest.raises(ValueError, match="closed"):
            call()


def test_random_access_reads_about_one_chunk() -> None:
    """A 64 KiB-aligned read of a large file reads one chunk of it, not a scan."""

    class Counting(io.BytesIO):
        read_bytes = 0

        def read(self, n=-1):
            data = super().read(n)
            Counting.read_bytes += len(data)
            return data

    key = os.urandom(32)
    data = os.urandom(32 << 20)
    sink = io.BytesIO()
    with gcmsiv.open(sink, "wb", key=key) as f:
        f.write(data)
    source = Counting(sink.getvalue())
    with gcmsiv.open(source, key=key) as f:
        f.seek(17 * 65536)
        opened = Counting.read_bytes  # the header and the final chunk
        assert opened <= HEADER + 65536 + OVERHEAD
        assert f.read(65536) == data[17 * 65536 : 18 * 65536]
        assert Counting.read_bytes - opened == 65536 + OVERHEAD


# --- the writer ------------------------------------------------------------------------------


def test_exception_in_with_leaves_truncated_file(tmp_path: pathlib.Path) -> None:
    key = os.urandom(32)
    target = tmp_path / "t.gcmsiv"
    data = os.urandom(3 << 20)  # more than a batch: some chunks reach the file
    with pytest.raises(RuntimeError):
        with gcmsiv.open(target, "wb", key=key, chunk_size=1024) as f:
            f.write(data)
            raise RuntimeError("boom")
    assert f.closed
    assert target.stat().st_size > HEADER  # the chunks sealed so far are there
    with gcmsiv.open(target, key=key) as f:
        got, failure = read_released(f, 4096)
    assert isinstance(failure, ValueError) and "truncated" in str(failure)
    assert data.startswith(got) and len(got) < len(data)
    with pytest.raises(ValueError, match="truncated"):
        gcmsiv.open(target, key=key).seek(1)


def test_dropped_writer_is_not_finished(tmp_path: pathlib.Path) -> None:
    key = os.urandom(32)
    target = tmp_path / "d.gcmsiv"
    f = gcmsiv.open(target, "wb", key=key, chunk_size=1024)
    f.write(os.urandom(5000))
    del f  # garbage-collected unclosed: not sealed
    with gcmsiv.open(target, key=key) as r, pytest.raises(ValueError, match="truncated|not a gcmsiv"):
        r.read()


def test_failed_write_is_not_finished() -> None:
    class Full(io.BytesIO):
        def write(self, b):
            if self.tell() + len(b) > 3_000_000:
                raise OSError(28, "No space left on device")
            return super().write(b)

    key = os.urandom(32)
    sink = Full()
    with pytest.raises(OSError):
        with gcmsiv.open(sink, "wb", key=key, chunk_size=1024) as f:
            for _ in range(100):
                f.write(os.urandom(100_000))
    with pytest.raises(ValueError):
        f.write(b"x")
    written = sink.getvalue()
    with gcmsiv.open(io.BytesIO(written), key=key) as r, pytest.raises(ValueError, match="truncated"):
        r.read()
    # Closing explicitly after a failure does not finish the file either.
    sink2 = Full()
    w = gcmsiv.open(sink2, "wb", key=key, chunk_size=1024)
    with pytest.raises(OSError):
        w.write(os.urandom(10 << 20))
    w.close()
    with (
        gcmsiv.open(io.BytesIO(sink2.getvalue()), key=key) as r,
        pytest.raises(ValueError, match="truncated"),
    ):
        r.read()


def test_writer_rules() -> None:
    sink = io.BytesIO()
    f = gcmsiv.open(sink, "wb", key=bytes(32))
    assert f.writable() and not f.readable() and not f.seekable()
    assert f.write(bytearray(b"ab")) == 2 and f.write(memoryview(b"cd")) == 2
    import array

    assert f.write(array.array("I", [1, 2])) == 8
    f.flush()
    with pytest.raises(io.UnsupportedOperation):
        f.read()
    with pytest.raises(io.UnsupportedOperation):
        f.seek(0)
    assert f.tell() == 12
    f.close()
    f.close()  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        f.write(b"x")
    sink.seek(0)
    assert gcmsiv.open(sink, key=bytes(32)).read() == b"abcd" + bytes(array.array("I", [1, 2]))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({}, TypeError),
        ({"key": bytes(32), "passphrase": "x"}, TypeError),
        ({"key": bytes(31)}, ValueError),
        ({"key": "0" * 32}, TypeError),
        ({"passphrase": ""}, ValueError),
        ({"passphrase": 5}, TypeError),
        ({"key": bytes(32), "chunk_size": 1000}, ValueError),
        ({"key": bytes(32), "chunk_size": 512}, ValueError),
        ({"key": bytes(32), "chunk_size": 2 << 20}, ValueError),
        ({"key": bytes(32), "chunk_size": 1.5}, TypeError),
        ({"key": bytes(32), "algorithm": "aes192"}, ValueError),
        ({"key": bytes(32), "argon2_lanes": 2}, ValueError),
        ({"passphrase": "x", "argon2_memory_kib": 2 << 20}, ValueError),
        ({"passphrase": "x", "argon2_iterations": 0}, ValueError),
    ],
)
def test_bad_arguments_write(kwargs, error, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "never"
    with pytest.raises(error):
        gcmsiv.open(target, "wb", **kwargs)
    assert not target.exists()  # checked before the path is created


def test_bad_arguments_read(tmp_path: pathlib.Path) -> None:
    path = FORMAT / "hello.key-aes128.gcmsiv"
    for kwargs in ({"chunk_size": 1024}, {"algorithm": "aes128"}, {"argon2_lanes": 1}):
        with pytest.raises(ValueError):
            gcmsiv.open(path, key=bytes(32), **kwargs)
    for mode in ("rt", "a", "r+b", "", "wt"):
        with pytest.raises(ValueError, match="mode"):
            gcmsiv.open(path, mode, key=bytes(32))
    with open(path) as text, pytest.raises(TypeError, match="binary"):
        gcmsiv.open(text, key=bytes(32))
    (tmp_path / "bad.txt").write_text("not a key\n")
    with pytest.raises(ValueError, match="key file"):
        gcmsiv.open(path, key_file=tmp_path / "bad.txt")
    with pytest.raises(FileNotFoundError, match="key file"):
        gcmsiv.open(path, key_file=tmp_path / "missing.txt")


# --- pipes, fork, the gcmsiv tool ----------------------------------------------------------------


def test_real_pipe_streams_and_cannot_seek() -> None:
    key = os.urandom(32)
    data = os.urandom(3 << 20)
    sink = io.BytesIO()
    with gcmsiv.open(sink, "wb", key=key, chunk_size=4096) as f:
        f.write(data)
    r, w = os.pipe()

    def feed() -> None:
        with os.fdopen(w, "wb") as out:
            out.write(sink.getvalue())

    thread = threading.Thread(target=feed)
    thread.start()
    with os.fdopen(r, "rb") as source, gcmsiv.open(source, key=key) as f:
        assert not f.seekable()
        assert f.read(10) == data[:10]
        with pytest.raises(io.UnsupportedOperation):
            f.seek(0)
        assert f.tell() == 10
        assert f.read() == data[10:]
    thread.join()


def _child(path: str, key: bytes, queue) -> None:
    with gcmsiv.open(path, key=key) as f:
        queue.put(len(f.read()))


def test_usable_after_fork(tmp_path: pathlib.Path) -> None:
    """The chunk pool is this process's own: a forked child builds its own, not the
    parent's threads that do not exist there."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    key = os.urandom(32)
    target = tmp_path / "f.gcmsiv"
    with gcmsiv.open(target, "wb", key=key, chunk_size=1024) as f:
        f.write(os.urandom(4 << 20))  # many chunks per batch: the pool runs
    with gcmsiv.open(target, key=key) as f:
        assert len(f.read()) == 4 << 20
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(str(target), key, queue))
    child.start()
    child.join(120)
    assert child.exitcode == 0, "the child hung or failed"
    assert queue.get(timeout=5) == 4 << 20


def _cli() -> str | None:
    found = os.environ.get("GCMSIV_CLI") or shutil.which("gcmsiv")
    built = [REPO_ROOT / "target" / profile / "gcmsiv" for profile in ("release", "debug")]
    return found or next((str(path) for path in built if path.is_file()), None)


@pytest.mark.skipif(_cli() is None, reason="no gcmsiv tool: build it (cargo build --release -p gcmsiv-cli)")
def test_gcmsiv_tool_round_trips(tmp_path: pathlib.Path) -> None:
    cli = _cli()
    key_file = FORMAT / "key.txt"
    data = random.Random(5).randbytes(200_000)
    (tmp_path / "plain").write_bytes(data)
    cli_file = tmp_path / "by-cli.gcmsiv"
    subprocess.run(
        [
            cli,
            "encrypt",
            "-k",
            str(key_file),
            "--chunk-size-exp",
            "12",
            "-o",
            str(cli_file),
            str(tmp_path / "plain"),
        ],
        check=True,
    )
    with gcmsiv.open(cli_file, key_file=key_file) as f:
        assert f.read() == data
        f.seek(123_456)
        assert f.read(5000) == data[123_456:128_456]
    py_file = tmp_path / "by-python.gcmsiv"
    with gcmsiv.open(py_file, "wb", key_file=key_file, chunk_size=2048, algorithm="aes128") as f:
        write_in_pieces(f, data)
    out = tmp_path / "out"
    subprocess.run([cli, "decrypt", "-k", str(key_file), "-o", str(out), str(py_file)], check=True)
    assert out.read_bytes() == data


def test_interop_entry_point(tmp_path: pathlib.Path) -> None:
    key = os.urandom(32).hex()
    data = os.urandom(300_000)
    (tmp_path / "plain").write_bytes(data)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "gcmsiv._interop", *args], capture_output=True, text=True, check=False
        )

    enc = tmp_path / "enc"
    assert run("encrypt", key, "1024", "aes128", str(tmp_path / "plain"), str(enc)).returncode == 0
    assert run("decrypt", key, str(enc), str(tmp_path / "dec")).returncode == 0
    assert (tmp_path / "dec").read_bytes() == data
    assert run("range", key, str(enc), "5000", "70000", str(tmp_path / "r")).returncode == 0
    assert (tmp_path / "r").read_bytes() == data[5000:75000]
    assert run("range", key, str(enc), "299990", "100", str(tmp_path / "r")).returncode == 0
    assert (tmp_path / "r").read_bytes() == data[299990:]
    (tmp_path / "cut").write_bytes(enc.read_bytes()[:-1])
    result = run("decrypt", key, str(tmp_path / "cut"), str(tmp_path / "dec"))
    assert result.returncode == 1 and result.stderr.startswith("format: file is truncated")
    assert data.startswith((tmp_path / "dec").read_bytes())
    result = run("range", "00" * 32, str(enc), "0", "10", str(tmp_path / "r"))
    assert result.returncode == 1 and result.stderr.startswith("authentication: wrong key")


def test_file_inside_a_larger_file() -> None:
    """Like gzip.open, a file object is read from where it stands; random access too."""
    key = os.urandom(32)
    data = os.urandom(10_000)
    inner = io.BytesIO()
    with gcmsiv.open(inner, "wb", key=key, chunk_size=1024) as f:
        f.write(data)
    outer = io.BytesIO(b"prefix" * 100 + inner.getvalue())
    outer.seek(600)
    with gcmsiv.open(outer, key=key) as f:
        assert f.read(100) == data[:100]
        f.seek(5000)
        assert f.read(3000) == data[5000:8000]
        assert f.seek(0, io.SEEK_END) == len(data)


# --- recipients ----------------------------------------------------------------------


def test_recipients_round_trip(tmp_path: pathlib.Path) -> None:
    alice, alice_r = gcmsiv.generate_identity()
    bob, bob_r = gcmsiv.generate_identity("hybrid")
    carol, _ = gcmsiv.generate_identity("x25519")
    assert alice.startswith("GCMSIV-SECRET-KEY-1") and alice_r.startswith("gcmsiv1")
    assert bob_r.startswith("gcmsivpq1") and gcmsiv.identity_recipient(bob) == bob_r
    with pytest.raises(ValueError, match="x25519"):
        gcmsiv.generate_identity("rsa")
    data = os.urandom(150_000)
    path = tmp_path / "to-alice.gcmsiv"
    with gcmsiv.open(path, "wb", recipients=[alice_r], chunk_size=4096) as f:
        f.write(data)
    with gcmsiv.open(path, identities=alice) as f:
        assert f.read() == data
    with gcmsiv.open(path, identities=carol + "\n" + alice) as f:
        f.seek(70_000)
        assert f.read(9000) == data[70_000:79_000]  # random access over the longer header
    with pytest.raises(gcmsiv.InvalidTag, match="no identity matched"):
        with gcmsiv.open(path, identities=carol) as f:
            f.read()
    with pytest.raises(ValueError, match="identit"), gcmsiv.open(path, key=bytes(32)) as f:
        f.read()
    with pytest.raises(ValueError, match="recipients in one file"):
        gcmsiv.open(tmp_path / "team.gcmsiv", "wb", recipients=[alice_r, bob_r])
    with gcmsiv.open(
        tmp_path / "team.gcmsiv",
        "wb",
        recipients=f"# team\n{alice_r}\n{bob_r}\n",
        allow_mixed_recipients=True,
    ) as f:
        f.write(data)
    with gcmsiv.open(tmp_path / "team.gcmsiv", identities=bob.encode()) as f:
        assert f.read() == data
    with pytest.raises(ValueError, match="line 1"):
        gcmsiv.open(path, "wb", recipients="gcmsiv1qqqq")
    with pytest.raises(ValueError, match="not a list of identities"):
        gcmsiv.open(path, identities=alice_r)
    with pytest.raises(ValueError, match="only to recipients"):
        gcmsiv.open(path, identities=alice, allow_mixed_recipients=True)
