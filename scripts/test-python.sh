#!/usr/bin/env bash
# Checks the Python package in bindings/python: rustfmt and clippy on the binding crate;
# then, in a fresh virtual environment, ruff on its Python files, the wheel built and
# installed with the one pip command users run, and every pytest test (vectors,
# pyca/cryptography compatibility and differential tests, buffers, batches, threads,
# stubs, gcmsiv.arrow with pandas, Polars and PySpark in local mode). Needs Rust, Python
# 3.11 or later (python3, or $PYTHON), a JDK 17 or later (java), PyPI and crates.io, and
# the vectors folder. Works from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
BINDING=bindings/python

step() { printf '\n== %s\n' "$*"; }

"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "the Python package needs Python 3.11 or later; set PYTHON to one" >&2
    exit 1
}
test -d "${GCMSIV_VECTORS:-vectors}" || {
    echo "no vectors folder: the repository's vectors/ (or the folder GCMSIV_VECTORS names)" >&2
    exit 1
}

step "python binding: formatting and clippy (warnings denied)"
cargo fmt --manifest-path "$BINDING/Cargo.toml" -- --check
cargo clippy --manifest-path "$BINDING/Cargo.toml" --all-targets -- -D warnings

step "python binding: fresh virtual environment"
# A temporary one, or the folder GCMSIV_PYTHON_VENV names, made afresh and kept
# (scripts/test.sh keeps it for the cross-language test, which runs the package).
if [ -n "${GCMSIV_PYTHON_VENV:-}" ]; then
    VENV="$GCMSIV_PYTHON_VENV"
    rm -rf "$VENV"
else
    VENV="$(mktemp -d)"
    trap 'rm -rf "$VENV"' EXIT
fi
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet pytest hypothesis cryptography numpy mypy ruff
# gcmsiv.arrow's tests: pyarrow, pandas and Polars, and PySpark in local mode (on the JDK
# that the Java binding's tests need too).
"$VENV/bin/python" -m pip install --quiet pyarrow pandas polars pyspark

step "python binding: ruff (lint and formatting of the tests, benchmark and stubs)"
"$VENV/bin/ruff" check "$BINDING"
"$VENV/bin/ruff" format --check "$BINDING"

step "python binding: pip install ./$BINDING"
"$VENV/bin/python" -m pip install "./$BINDING"

step "python binding: pytest"
# Run from the tests folder so that `import gcmsiv` finds the installed wheel, never the
# source folder.
# GCMSIV_REQUIRE_SPARK=1: the Spark test fails, rather than skips, without pyspark or a JDK.
(cd "$BINDING/tests" && GCMSIV_REQUIRE_SPARK=1 "$VENV/bin/python" -m pytest -p no:cacheprovider -q .)
