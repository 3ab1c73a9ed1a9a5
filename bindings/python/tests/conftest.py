"""Shared helpers: where the test vectors live, and the two implementations side by side."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

# The repository root is bindings/python/../..; the vectors are its vectors/ folder.
REPO_ROOT = Path(__file__).resolve().parents[3]
VECTORS = Path(os.environ.get("GCMSIV_VECTORS", REPO_ROOT / "vectors"))


def load_vectors(name: str) -> dict[str, Any]:
    """One vector file, parsed. A missing file fails the run: a vector test must not pass
    by finding nothing."""
    path = VECTORS / name
    if not path.is_file():
        raise FileNotFoundError(
            f"test vector file {name} not found in {VECTORS}: the repository's vectors/ folder, "
            "or the folder GCMSIV_VECTORS names"
        )
    with path.open() as f:
        return json.load(f)


@pytest.fixture(params=["AESGCMSIV", "AESGCM"])
def algorithm(request: pytest.FixtureRequest) -> str:
    """Each test taking this runs once per class."""
    return request.param
