#!/usr/bin/env bash
# Keysets across Tink and gcmsiv, both ways, with Tink itself (the `tink` package
# from PyPI, pinned): Tink makes keysets of every AES-GCM-SIV and AES-GCM key size
# with TINK, LEGACY, CRUNCHY and RAW prefixes, in JSON and binary, in the clear and
# encrypted, and ciphertexts with each key; gcmsiv-keyset (its tink_interop example)
# reads them all and opens every ciphertext, then writes its own keysets (the same
# kinds, and a rotated keyset with disabled and destroyed keys) and ciphertexts, which
# Tink reads and opens, and Tink's ciphertexts under them open here. Then the tool,
# `gcmsiv keyset`, on keysets Tink made and Tink on keysets the tool made.
# scripts/tink_keysets.py is Tink's side. Needs Rust and Python 3.11 or later
# (python3, or $PYTHON) with venv, and PyPI. Works from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
# The Tink release these tests were written against; a new one is a deliberate change.
TINK_VERSION=1.16.1
VENV=target/tink-venv

step() { printf '\n== %s\n' "$*"; }

step "Tink $TINK_VERSION in a virtual environment ($VENV)"
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('tink') != '$TINK_VERSION')" 2>/dev/null; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "tink==$TINK_VERSION"
fi

step "our side: the tink_interop example and the tool (release builds)"
cargo build --release --quiet -p gcmsiv-keyset --example tink_interop
cargo build --release --quiet -p gcmsiv-cli

step "keysets and ciphertexts both ways: the library"
"$VENV/bin/python" scripts/tink_keysets.py interop target/release/examples/tink_interop

step "keysets and ciphertexts both ways: gcmsiv keyset, keysets encrypted under a key file"
"$VENV/bin/python" scripts/tink_keysets.py tool target/release/gcmsiv
