"""The cross-language test's entry point for the Python package (not a public API).

    python -m gcmsiv._interop encrypt <keyhex> <chunk_size> <aes128|aes256> <in> <out>
    python -m gcmsiv._interop decrypt <keyhex> <in> <out>
    python -m gcmsiv._interop range <keyhex> <in> <offset> <length> <out>

``encrypt`` writes ``out`` with ``gcmsiv.open(..., "wb")``, feeding the plaintext in pieces
of 1, 1000 and 65537 bytes in rotation. ``decrypt`` reads ``in`` in order (the streaming
reader) and writes exactly what it released. ``range`` seeks to ``offset`` and reads
``length`` bytes (the random-access reader). On a bad file, ``decrypt`` and ``range`` exit
1 with one line on stderr, ``authentication: ...`` or ``format: ...``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import gcmsiv

_PIECES = (1, 1000, 65537)


def _key(hexdigits: str) -> dict:
    """The secret argument as gcmsiv.open's keyword: a key as 64 hexadecimal digits, or
    recipients=PATH or identities=PATH (a recipients or identity file)."""
    for name in ("recipients", "identities"):
        if hexdigits.startswith(name + "="):
            with open(hexdigits[len(name) + 1 :], encoding="utf-8") as f:
                return {name: f.read()}
    key = bytes.fromhex(hexdigits)
    if len(key) != 32:
        raise SystemExit("usage: the key is 64 hexadecimal digits")
    return {"key": key}


def _encrypt(key: dict, chunk_size: str, algorithm: str, src: str, dst: str) -> int:
    with open(src, "rb") as f:
        plaintext = f.read()
    view = memoryview(plaintext)
    if algorithm not in ("aes128", "aes256"):
        raise SystemExit("usage: the algorithm is aes128 or aes256")
    with gcmsiv.open(dst, "wb", **key, chunk_size=int(chunk_size), algorithm=algorithm) as out:  # type: ignore[arg-type]
        at, turn = 0, 0
        while at < len(view):
            n = _PIECES[turn % len(_PIECES)]
            out.write(view[at : at + n])
            at, turn = at + n, turn + 1
    return 0


def _decrypt(key: dict, src: str, dst: str) -> int:
    with open(dst, "wb") as out:
        try:
            with gcmsiv.open(src, "rb", **key) as f:
                while piece := f.read1(1 << 20):
                    out.write(piece)
        except (gcmsiv.InvalidTag, ValueError) as error:
            return _failed(error)
    return 0


def _range(key: dict, src: str, offset: str, length: str, dst: str) -> int:
    try:
        with gcmsiv.open(src, "rb", **key) as f:
            f.seek(int(offset))
            data = f.read(int(length))
    except (gcmsiv.InvalidTag, ValueError) as error:
        open(dst, "wb").close()
        return _failed(error)
    with open(dst, "wb") as out:
        out.write(data)
    return 0


def _failed(error: BaseException) -> int:
    kind = "authentication" if isinstance(error, gcmsiv.InvalidTag) else "format"
    print(f"{kind}: {error}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    commands: dict[str, tuple[Callable[..., int], int]] = {
        "encrypt": (_encrypt, 5),
        "decrypt": (_decrypt, 3),
        "range": (_range, 5),
    }
    if not argv or argv[0] not in commands or len(argv) - 1 != commands[argv[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    run, _ = commands[argv[0]]
    return run(_key(argv[1]), *argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
