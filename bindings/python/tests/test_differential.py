"""Differential tests against pyca/cryptography: random keys, nonces, associated data and
messages must give byte-identical ciphertexts, and both libraries must accept and refuse
the same ciphertexts."""

from __future__ import annotations

import gcmsiv
import pytest
from cryptography.exceptions import InvalidTag as PycaInvalidTag
from cryptography.hazmat.primitives.ciphers import aead
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

keys = st.sampled_from([16, 32]).flatmap(lambda n: st.binary(min_size=n, max_size=n))
# Mostly short messages, sometimes past the 4 KiB GIL threshold and the 8-block kernels.
messages = st.one_of(st.binary(max_size=300), st.binary(min_size=4000, max_size=9000))
aads = st.one_of(st.none(), st.binary(max_size=100), st.binary(min_size=4000, max_size=5000))
kinds = st.sampled_from([bytes, bytearray, memoryview])


def nonces(algorithm: str) -> st.SearchStrategy[bytes]:
    if algorithm == "AESGCMSIV":
        return st.binary(min_size=12, max_size=12)
    return st.one_of(st.binary(min_size=12, max_size=12), st.binary(min_size=8, max_size=128))


def check_same(algorithm: str, key: bytes, nonce: bytes, aad: bytes | None, data: bytes, kind) -> None:
    ours, theirs = getattr(gcmsiv, algorithm)(key), getattr(aead, algorithm)(key)
    sealed = theirs.encrypt(nonce, data, aad)
    wrap = (lambda b: b) if aad is None else kind
    assert ours.encrypt(kind(nonce), kind(data), wrap(aad)) == sealed
    assert ours.decrypt(kind(nonce), kind(sealed), wrap(aad)) == data
    assert ours.encrypt_many([(nonce, data, aad)]) == [sealed]
    assert ours.decrypt_many([(nonce, sealed, aad)]) == [data]


@SETTINGS
@given(key=keys, nonce=nonces("AESGCMSIV"), aad=aads, data=messages, kind=kinds)
def test_aesgcmsiv_matches_pyca(key, nonce, aad, data, kind) -> None:
    check_same("AESGCMSIV", key, nonce, aad, data, kind)


@SETTINGS
@given(key=keys, nonce=nonces("AESGCM"), aad=aads, data=messages, kind=kinds)
def test_aesgcm_matches_pyca(key, nonce, aad, data, kind) -> None:
    check_same("AESGCM", key, nonce, aad, data, kind)


@SETTINGS
@given(
    algorithm=st.sampled_from(["AESGCMSIV", "AESGCM"]),
    key=keys,
    data=st.binary(max_size=200),
    aad=st.binary(max_size=40),
    position=st.integers(min_value=0),
    bit=st.integers(min_value=0, max_value=7),
)
def test_tampering_is_refused_by_both(algorithm, key, data, aad, position, bit) -> None:
    nonce = bytes(12)
    ours, theirs = getattr(gcmsiv, algorithm)(key), getattr(aead, algorithm)(key)
    sealed = bytearray(theirs.encrypt(nonce, data, aad))
    sealed[position % len(sealed)] ^= 1 << bit
    with pytest.raises(gcmsiv.InvalidTag):
        ours.decrypt(nonce, sealed, aad)
    with pytest.raises(PycaInvalidTag):
        theirs.decrypt(nonce, bytes(sealed), aad)
    assert ours.decrypt_many([(nonce, sealed, aad)]) == [None]


@SETTINGS
@given(
    algorithm=st.sampled_from(["AESGCMSIV", "AESGCM"]),
    key=keys,
    batch=st.lists(
        st.tuples(
            st.binary(min_size=12, max_size=12), st.binary(max_size=100), st.none() | st.binary(max_size=20)
        ),
        max_size=30,
    ),
)
def test_batches_match_pyca(algorithm, key, batch) -> None:
    ours, theirs = getattr(gcmsiv, algorithm)(key), getattr(aead, algorithm)(key)
    sealed = [theirs.encrypt(*item) for item in batch]
    assert ours.encrypt_many(batch) == sealed
    assert ours.decrypt_many((n, s, a) for (n, _, a), s in zip(batch, sealed, strict=True)) == [
        d for _, d, _ in batch
    ]
