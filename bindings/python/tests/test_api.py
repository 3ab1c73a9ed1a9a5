"""The package as a user meets it: exports, docstrings, type stubs, the README's examples,
and nothing secret in what an object shows."""

from __future__ import annotations

import importlib.resources
import re
import subprocess
import sys
from pathlib import Path

import gcmsiv
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_exports() -> None:
    exported = {"AESGCM", "AESGCMSIV", "InvalidTag", "__version__", "backend", "backend_bits", "backends"}
    exported |= {"GcmsivFile", "generate_identity", "identity_recipient", "open"}
    assert set(gcmsiv.__all__) == exported
    assert re.fullmatch(r"\d+\.\d+\.\d+", gcmsiv.__version__)
    listed = gcmsiv.backends()
    assert [name for name, _ in listed][:4] == ["portable", "aesni-clmul", "aesni-vaes", "armv8-aes-pmull"]
    assert listed[0] == ("portable", True)
    assert (gcmsiv.backend(), True) in listed
    widths = {"portable": {64}, "aesni-clmul": {128}, "aesni-vaes": {256, 512}, "armv8-aes-pmull": {128}}
    assert gcmsiv.backend_bits() in widths[gcmsiv.backend()]
    for name in ("AESGCMSIV", "AESGCM", "InvalidTag"):
        assert getattr(gcmsiv, name).__module__ == "gcmsiv"


@pytest.mark.parametrize("name", ["AESGCMSIV", "AESGCM"])
def test_every_public_callable_has_a_docstring(name: str) -> None:
    cls = getattr(gcmsiv, name)
    assert cls.__doc__ and len(cls.__doc__) > 100
    for method in (
        "generate_key",
        "encrypt",
        "decrypt",
        "encrypt_into",
        "decrypt_into",
        "encrypt_many",
        "decrypt_many",
    ):
        doc = getattr(cls, method).__doc__
        assert doc and len(doc) > 60, method
    assert gcmsiv.InvalidTag.__doc__ and gcmsiv.backend.__doc__


@pytest.mark.parametrize("name", ["AESGCMSIV", "AESGCM"])
def test_signatures_are_pycas(name: str) -> None:
    """Same argument names, so keyword calls written for pyca work unchanged."""
    aead = pytest.importorskip("cryptography.hazmat.primitives.ciphers.aead")
    ours, theirs = getattr(gcmsiv, name), getattr(aead, name)
    assert ours.__text_signature__ == theirs.__text_signature__ == "(key)"
    for method in ("generate_key", "encrypt", "decrypt", "encrypt_into", "decrypt_into"):
        assert getattr(ours, method).__text_signature__ == getattr(theirs, method).__text_signature__
    assert ours.encrypt_many.__text_signature__ == "($self, items)"


def test_nothing_secret_in_repr() -> None:
    key = bytes(range(32))
    c = gcmsiv.AESGCMSIV(key)
    for shown in (repr(c), str(c)):
        assert key.hex() not in shown and "0102030405" not in shown
        assert shown.startswith("<gcmsiv.AESGCMSIV object")


def test_stubs_ship_with_the_package() -> None:
    files = importlib.resources.files("gcmsiv")
    assert files.joinpath("py.typed").is_file()
    stub = files.joinpath("__init__.pyi").read_text()
    for name in (
        "class AESGCMSIV",
        "class AESGCM",
        "class InvalidTag",
        "def encrypt_many",
        "def decrypt_many",
    ):
        assert name in stub


def test_stubs_match_the_module(tmp_path: Path) -> None:
    """mypy's stubtest compares every stub signature with the compiled module."""
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "gcmsiv"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # for mypy's cache
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", README.read_text()))))
def test_readme_examples_run(index: int) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README should have Python examples"
    exec(compile(blocks[index], f"README.md example {index + 1}", "exec"), {})
