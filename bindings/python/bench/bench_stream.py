"""Throughput of ``gcmsiv.open``: one file written in 1 MiB writes, read back in order in
1 MiB ``readinto`` calls, and the cost of one 64 KiB-aligned random read (bytes read from
the file and time), with the gcmsiv tool's encrypt and decrypt of the same file beside it
when a built tool is given (``--cli target/release/gcmsiv``).

    python bench/bench_stream.py [--size-mib 256] [--dir DIR] [--cli PATH]

Best of ``--repeat`` runs; MB/s are 10^6 bytes of plaintext per second.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import tempfile
import time

import gcmsiv

MIB = 1 << 20


def best(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--dir", default=None, help="where the files go (default: the temp dir)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", default=None, help="a built gcmsiv tool, to time beside")
    args = parser.parse_args()
    size = args.size_mib * MIB
    key = bytes(range(32))
    piece = os.urandom(MIB)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        plain, enc = os.path.join(tmp, "plain"), os.path.join(tmp, "enc")

        def encrypt() -> None:
            with gcmsiv.open(enc, "wb", key=key) as f:
                for _ in range(size // MIB):
                    f.write(piece)

        buf = bytearray(MIB)

        def decrypt() -> None:
            with gcmsiv.open(enc, "rb", key=key) as f:
                while f.readinto(buf):
                    pass

        rows = [
            ("gcmsiv.open 'wb', 1 MiB writes", best(args.repeat, encrypt)),
            ("gcmsiv.open 'rb', 1 MiB readinto", best(args.repeat, decrypt)),
        ]
        if args.cli:
            with open(plain, "wb") as f:
                for _ in range(size // MIB):
                    f.write(piece)
            key_file = os.path.join(tmp, "key")
            with open(key_file, "w") as f:
                f.write("gcmsiv-key-v1:" + key.hex() + "\n")
            out = os.path.join(tmp, "out")

            def cli_run(command: str, source: str, target: str):
                argv = [args.cli, command, "-q", "-f", "-k", key_file, "-o", target, source]
                return lambda: subprocess.run(argv, check=True, capture_output=True)

            rows.append(("gcmsiv encrypt (the tool)", best(args.repeat, cli_run("encrypt", plain, out))))
            rows.append(("gcmsiv decrypt (the tool)", best(args.repeat, cli_run("decrypt", enc, out))))
        for name, seconds in rows:
            print(f"{name:36} {size / seconds / 1e6:8.0f} MB/s")

        class Counting(io.FileIO):
            read_bytes = 0

            def read(self, n: int = -1) -> bytes:
                data = super().read(n)
                Counting.read_bytes += len(data)
                return data

        with gcmsiv.open(Counting(enc), key=key) as f:
            f.seek(0, io.SEEK_END)  # random access: the header and the final chunk
            before = Counting.read_bytes
            start = time.perf_counter()
            f.seek((size // 2) & ~0xFFFF)
            assert len(f.read(65536)) == 65536
            seconds = time.perf_counter() - start
        print(
            f"one 64 KiB random read of the {args.size_mib} MiB file: "
            f"{Counting.read_bytes - before} bytes read, {seconds * 1e6:.0f} us"
        )


if __name__ == "__main__":
    main()
