"""Spark benchmark: one column encrypted and decrypted by gcmsiv.arrow through mapInArrow
(the recipe of docs/ARROW.md) beside Spark's built-in aes_encrypt/aes_decrypt (AES-GCM), in
the same local session on one executor core (local[1]). Values per second, best of a few
rounds. Each query sums its values' lengths, so every value is computed and nothing is
written; encryptions read cached plaintext, decryptions read the ciphertexts from Parquet.

    python bench/bench_spark.py [--values 1000000] [--sizes 16,64,256]

Needs pyspark and a JDK 17 or later. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from functools import partial

import pyarrow as pa
from bench_arrow import best  # this folder: run as python bench/bench_spark.py
from gcmsiv.arrow import decrypt_array, encrypt_array

KEY = bytes(range(32))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--sizes", default="16,64,256")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("gcmsiv-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "65536")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    key = spark.sparkContext.broadcast(KEY)

    def encrypt(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield pa.RecordBatch.from_arrays(
                [encrypt_array(key.value, batch.column(0), threads=1)], names=["c"]
            )

    def decrypt(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield pa.RecordBatch.from_arrays(
                [decrypt_array(key.value, batch.column(0), threads=1)], names=["v"]
            )

    def run(df, column: str) -> None:
        # An aggregate over every value's length: each value is computed, nothing stored.
        df.agg(F.sum(F.length(column))).collect()

    print(
        f"# Spark {spark.version}, local[1]; {args.values} values per column; values/s, best of {args.rounds}"
    )
    print("| bytes | op | gcmsiv.arrow (mapInArrow) | Spark aes_encrypt/aes_decrypt (GCM) | ratio |")
    print("|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        # Random values of `size` bytes, made once and cached in the executor; the
        # ciphertexts written to Parquet once, and read from there by the decryptions.
        words = (size + 63) // 64
        value = F.concat(
            *[
                F.unhex(F.sha2(F.concat(F.col("id").cast("string"), F.lit(f"/{w}")), 512))
                for w in range(words)
            ]
        )
        plain = spark.range(args.values).select(F.substring(value, 1, size).alias("v")).cache()
        plain.count()
        where = tempfile.mkdtemp(prefix="gcmsiv-bench-")
        plain.mapInArrow(encrypt, "c binary").write.parquet(f"{where}/ours")
        plain.select(F.expr(f"aes_encrypt(v, X'{KEY.hex()}', 'GCM')").alias("c")).write.parquet(
            f"{where}/theirs"
        )
        ours_sealed, theirs_sealed = (
            spark.read.parquet(f"{where}/ours"),
            spark.read.parquet(f"{where}/theirs"),
        )
        rows = [
            (
                "encrypt",
                (plain.mapInArrow(encrypt, "c binary"), "c"),
                (plain.select(F.expr(f"aes_encrypt(v, X'{KEY.hex()}', 'GCM')").alias("c")), "c"),
            ),
            (
                "decrypt",
                (ours_sealed.mapInArrow(decrypt, "v binary"), "v"),
                (theirs_sealed.select(F.expr(f"aes_decrypt(c, X'{KEY.hex()}', 'GCM')").alias("v")), "v"),
            ),
        ]
        for op, ours, theirs in rows:
            ours_rate = args.values / best(partial(run, *ours), args.rounds)
            theirs_rate = args.values / best(partial(run, *theirs), args.rounds)
            print(
                f"| {size} | {op} | {ours_rate / 1e6:.2f} M | {theirs_rate / 1e6:.2f} M | "
                f"{ours_rate / theirs_rate:.2f}x |",
                flush=True,
            )
        plain.unpersist()
        shutil.rmtree(where)
    spark.stop()


if __name__ == "__main__":
    main()
