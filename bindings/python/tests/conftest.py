"""Shared helpers: where the test vectors live, and the two implementations side by side."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

# The repository root is bindings/python/../..; the shared vectors sit beside it.
REPO_ROOT = Path(__file__).resolve().parents[3]
VECTORS = Path(os.environ.get("GCMSIV_VECTORS", REPO_ROOT.parent / "shared" / "vectors"))


def load_vectors(name: str) -> dict[str, Any]:
    """One vector file, parsed. A missing file fails the run: a vector test must not pass
    by finding nothing."""
    path = VECTORS / name
    if not path.is_file():
        raise FileNotFoundError(
            f"test vector file {name} not found in {VECTORS}: put the shared vectors beside the "
            "checkout, or point GCMSIV_VECTORS at them"
        )
    with path.open() as f:
        return json.load(f)


@pytest.fixture(params=["AESGCMSIV", "AESGCM"])
def algorithm(request: pytest.FixtureRequest) -> str:
    """Each test taking this runs once per class."""
    return request.param
