"""The Spark recipe of docs/SPARK.md, run: PySpark in local mode encrypts a DataFrame column
through ``mapInArrow`` with ``gcmsiv.arrow``, the key from a broadcast, writes Parquet, reads
it back and decrypts it. Needs pyspark and a JDK 17 or later; without them the test is
skipped, unless GCMSIV_REQUIRE_SPARK=1 (as scripts/test-python.sh sets), which fails it."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from gcmsiv.arrow import decrypt_array, derive_column_key, encrypt_array

MASTER_KEY = bytes(range(32))


def spark_or_skip():
    why = None
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        why = "pyspark is not installed"
    if why is None and not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        why = "no JDK (java) found"
    if why is not None:
        if os.environ.get("GCMSIV_REQUIRE_SPARK") == "1":
            pytest.fail(f"GCMSIV_REQUIRE_SPARK=1 but {why}")
        pytest.skip(why)
    # The Python workers must be this interpreter, which has gcmsiv installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    return (
        SparkSession.builder.master("local[1]")
        .appName("gcmsiv-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )


@pytest.fixture(scope="module")
def spark():
    session = spark_or_skip()
    yield session
    session.stop()


def row_keys(batch: pa.RecordBatch) -> pa.Array:
    """Each row's id as bytes: the associated data that ties a value to its row."""
    return batch.column("id").cast(pa.string()).cast(pa.binary())


def test_encrypt_a_column_write_parquet_read_and_decrypt(spark, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    rows = [
        (i, f"{i:03d}-55-{i * 7 % 10000:04d}" if i % 13 else None, f"user{i % 50}@example.com")
        for i in range(600)
    ]
    df = spark.createDataFrame(rows, "id long, ssn string, email string")
    ssn_key = spark.sparkContext.broadcast(derive_column_key(MASTER_KEY, "ssn"))
    email_key = spark.sparkContext.broadcast(derive_column_key(MASTER_KEY, "email"))

    def encrypt(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            ssn = encrypt_array(
                ssn_key.value, batch.column("ssn"), associated_data=row_keys(batch), threads=1
            )
            email = encrypt_array(email_key.value, batch.column("email"), mode="deterministic", threads=1)
            yield pa.RecordBatch.from_arrays([batch.column("id"), ssn, email], names=["id", "ssn", "email"])

    encrypted = df.mapInArrow(encrypt, "id long, ssn binary, email binary")
    path = str(tmp_path / "people.parquet")
    encrypted.write.parquet(path)

    stored = spark.read.parquet(path)
    assert stored.schema["ssn"].dataType.typeName() == "binary"
    cells = {r["id"]: (r["ssn"], r["email"]) for r in stored.collect()}
    assert len(cells) == len(rows)
    # Deterministic: equal e-mails have equal ciphertexts (Spark can join and group them).
    assert len({email for _, email in cells.values()}) == 50
    cell = bytes(cells[14][0])
    assert (
        AESGCMSIV(derive_column_key(MASTER_KEY, "ssn")).decrypt(cell[:12], cell[12:], b"14") == b"014-55-0098"
    )

    def decrypt(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            ssn = decrypt_array(
                ssn_key.value, batch.column("ssn"), associated_data=row_keys(batch), threads=1
            )
            email = decrypt_array(email_key.value, batch.column("email"), mode="deterministic", threads=1)
            yield pa.RecordBatch.from_arrays(
                [batch.column("id"), ssn.cast(pa.string()), email.cast(pa.string())],
                names=["id", "ssn", "email"],
            )

    decrypted = stored.mapInArrow(decrypt, "id long, ssn string, email string")
    assert sorted(tuple(r) for r in decrypted.collect()) == rows

    # A value moved to another row fails there: the task raises InvalidTag with its index.
    swapped = stored.select(
        "id", F.when(F.col("id") == 1, F.lit(cell)).otherwise(F.col("ssn")).alias("ssn"), "email"
    ).where(F.col("id") < 3)
    with pytest.raises(Exception, match="InvalidTag"):
        swapped.mapInArrow(decrypt, "id long, ssn string, email string").collect()
